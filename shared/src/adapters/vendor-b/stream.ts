import type { AdapterContext, PacketStream, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import type { EventVerdict } from './event.ts';
import { evaluateEvent } from './event.ts';
import type { UpdateMessage } from './message.ts';
import { decodeMessage } from './message.ts';

/**
 * Events remembered at once. Protect sends an event's `add` and its closing `update` a few
 * seconds apart; 1,000 open events is far beyond what one console produces in that time,
 * and bounds memory when updates for events we never saw keep arriving.
 */
export const MAX_REMEMBERED_EVENTS = 1000;

/** Merge depth limit: patches nest two or three levels; deeper input replaces, not merges. */
const MAX_MERGE_DEPTH = 8;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Apply a partial update: objects merge key by key, everything else (arrays included, as
 * uiprotect does for `detectedThumbnails`) replaces the old value.
 */
export function mergePatch(base: Json, patch: Json, depth = 0): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__') continue;
    const old = out[key];
    out[key] = depth < MAX_MERGE_DEPTH && isRecord(old) && isRecord(value) ? mergePatch(old, value, depth + 1) : value;
  }
  return out;
}

/** `pending`: still waiting for `end` or for plate text; `done`: emitted or given up on. */
type Entry = { state: 'pending'; event: Json } | { state: 'done' };

/**
 * The realtime decoder (docs/camera-formats.md "vendor_b updates WebSocket", "vendor_b integration
 * WebSocket"). `add` is remembered by id, `update` patches merge into it (they carry no camera or
 * start), and the detection is emitted once the merged event has ended and has plate text, once per
 * event id. Per pushed message the outcome counts: a detection when one is emitted; an error for a
 * broken message or an event that turns out invalid; `ignored` for a message that can never yield a
 * detection (another modelKey, `remove`, a non-smart event, an update for an unknown or finished
 * event). A message that is merely held back counts nothing until it is emitted, flushed or
 * evicted.
 */
export class VendorBStream implements PacketStream {
  private readonly entries = new Map<string, Entry>();
  private readonly context: AdapterContext;

  constructor(context: AdapterContext) {
    this.context = context;
  }

  push(packet: Uint8Array): ParseOutcome {
    const outcome = emptyOutcome();
    try {
      this.pushInto(packet, outcome);
    } catch (error) {
      // Defence in depth: a socket reader must survive any packet (error rule 2 in
      // docs/cameras.md).
      outcome.errors.push({ reason: `vendor_b stream fault: ${String(error)}` });
    }
    return outcome;
  }

  private pushInto(packet: Uint8Array, outcome: ParseOutcome): void {
    const message = decodeMessage(packet);
    if (!message.ok) {
      outcome.errors.push({ reason: message.reason });
      return;
    }
    this.apply(message.value, outcome);
    this.evict(outcome);
  }

  flush(): ParseOutcome {
    const outcome = emptyOutcome();
    for (const [id, entry] of this.entries) {
      if (entry.state === 'pending') this.settle(evaluateEvent(entry.event, this.context), outcome);
      this.entries.set(id, { state: 'done' });
    }
    return outcome;
  }

  /** Held events (pending or finished), for tests and diagnostics. */
  get size(): number {
    return this.entries.size;
  }

  private apply(message: UpdateMessage, outcome: ParseOutcome): void {
    if (message.modelKey !== 'event' || (message.action !== 'add' && message.action !== 'update')) {
      outcome.ignored += 1;
      return;
    }
    const known = this.entries.get(message.id);
    if (known?.state === 'done' || (!known && message.action === 'update')) {
      outcome.ignored += 1;
      return;
    }
    const data = message.data();
    if (!data.ok) {
      outcome.errors.push({ reason: data.reason });
      return;
    }
    if (!isRecord(data.value)) {
      outcome.errors.push({ reason: 'event data is not a JSON object' });
      return;
    }
    const merged = mergePatch(known ? known.event : { id: message.id }, data.value);
    const verdict = evaluateEvent(merged, this.context);
    // A re-add moves the entry to the back of the eviction order.
    this.entries.delete(message.id);
    const ready = verdict.kind === 'not_candidate' || verdict.kind === 'error' || (verdict.kind === 'detection' && verdict.ended);
    if (ready) {
      this.settle(verdict, outcome);
      this.entries.set(message.id, { state: 'done' });
    } else {
      // Ended without plate text stays pending too: the plate can come in a later update.
      this.entries.set(message.id, { state: 'pending', event: merged });
    }
  }

  private settle(verdict: EventVerdict, outcome: ParseOutcome): void {
    if (verdict.kind === 'detection') outcome.detections.push(verdict.parsed);
    else if (verdict.kind === 'error') outcome.errors.push({ reason: verdict.reason });
    else outcome.ignored += 1;
  }

  /** Oldest first; an evicted pending event is settled as a flush would settle it. */
  private evict(outcome: ParseOutcome): void {
    while (this.entries.size > MAX_REMEMBERED_EVENTS) {
      const oldest = this.entries.entries().next().value;
      if (!oldest) return;
      const [id, entry] = oldest;
      this.entries.delete(id);
      if (entry.state === 'pending') this.settle(evaluateEvent(entry.event, this.context), outcome);
    }
  }
}

export const openVendorBStream = (context: AdapterContext): PacketStream => new VendorBStream(context);
