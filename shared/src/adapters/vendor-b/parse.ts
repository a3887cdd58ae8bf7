import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { evaluateEvent } from './event.ts';
import { eventsListOf, parseEventsList } from './events-list.ts';
import { parseJsonBytes, PULLED_JSON_LIMITS, PUSHED_JSON_LIMITS } from './json.ts';
import { isJsonText } from './message.ts';
import { splitPacket } from './packet.ts';
import { looksLikeEvent } from './recognize.ts';
import { VendorBStream } from './stream.ts';

const failure = (reason: string): ParseOutcome => ({ ...emptyOutcome(), failure: reason });

/** One message through a fresh stream, then flush: a single push stands on its own. */
function parseOneMessage(body: Uint8Array, context: AdapterContext): ParseOutcome {
  const stream = new VendorBStream(context);
  const pushed = stream.push(body);
  const flushed = stream.flush();
  return {
    detections: [...pushed.detections, ...flushed.detections],
    errors: [...pushed.errors, ...flushed.errors],
    ignored: pushed.ignored + flushed.ignored,
  };
}

/**
 * A single pushed event object has push semantics: it is emitted when it has plate text,
 * ended or not, since no later poll will bring it back (the pull list waits instead).
 */
function parseSingleEvent(event: unknown, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const verdict = evaluateEvent(event, context);
  if (verdict.kind === 'detection') outcome.detections.push(verdict.parsed);
  else if (verdict.kind === 'error') outcome.errors.push({ item: 0, reason: verdict.reason });
  else outcome.ignored += 1;
  return outcome;
}

const isOpenBracket = (body: Uint8Array): boolean => body.find((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) === 0x5b;

/**
 * Accepted payloads: the pull reply (a JSON array, or `{events: [...]}`), a single event
 * object, an Integration API message `{type, item}`, or one binary updates packet.
 */
export function parseVendorB(input: ParseInput, context: AdapterContext): ParseOutcome {
  const body = input.body;
  if (body.length === 0) return failure('empty body');
  if (!isJsonText(body) && !isOpenBracket(body)) {
    const frames = splitPacket(body);
    if (!frames.ok) return failure(`not JSON and not a vendor_b updates packet: ${frames.reason}`);
    return parseOneMessage(body, context);
  }
  const parsed = parseJsonBytes(body, input.origin === 'pulled' ? PULLED_JSON_LIMITS : PUSHED_JSON_LIMITS);
  if (!parsed.ok) return failure(`body: ${parsed.reason}`);
  const root = parsed.value;
  const list = eventsListOf(root);
  if (list) return parseEventsList(list, context);
  if (typeof root === 'object' && root !== null && !Array.isArray(root)) {
    const record = root as Record<string, unknown>;
    const item = record.item;
    if (typeof record.type === 'string' && typeof item === 'object' && item !== null && !Array.isArray(item)) {
      return parseOneMessage(body, context);
    }
    if (looksLikeEvent(root) || 'id' in record || 'type' in record) return parseSingleEvent(root, context);
  }
  return failure('JSON is neither a vendor_b event, an event list nor an update message');
}
