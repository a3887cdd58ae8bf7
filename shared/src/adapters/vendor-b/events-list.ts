import type { AdapterContext, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { evaluateEvent } from './event.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `start`/`end` read leniently, for the cursor only: a broken item still moves it on. */
const finiteMs = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : undefined);

/**
 * The pull response (docs/camera-formats.md "vendor_b pull"): an array of events. Only ended events
 * are yielded; an event still in progress (`end: null`) may not have its plate yet
 * (docs/camera-formats.md "vendor_b pull"), so it is counted as ignored and holds the cursor back
 * to its own `start`, which makes the next poll return it again.
 *
 * Cursor (docs/adapters.md): the largest `start` among ended events, lowered to the
 * smallest `start` of an in-progress smart event. The runner passes it back as the
 * inclusive `start` of the next query; events that come back twice keep their
 * detection_id (the event id), so they deduplicate.
 */
export function parseEventsList(items: readonly unknown[], context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  let maxEndedStart: number | undefined;
  let minOpenStart: number | undefined;
  items.forEach((item, index) => {
    if (!isRecord(item)) {
      outcome.errors.push({ item: index, reason: 'event is not a JSON object' });
      return;
    }
    const start = finiteMs(item.start);
    const endedByFields = finiteMs(item.end) !== undefined;
    const verdict = evaluateEvent(item, context);
    if (start !== undefined && endedByFields) maxEndedStart = Math.max(maxEndedStart ?? 0, start);
    switch (verdict.kind) {
      case 'error':
        outcome.errors.push({ item: index, reason: verdict.reason });
        return;
      case 'not_candidate':
        outcome.ignored += 1;
        return;
      case 'no_plate':
      case 'detection':
        if (!verdict.ended) {
          if (start !== undefined) minOpenStart = Math.min(minOpenStart ?? start, start);
          outcome.ignored += 1;
          return;
        }
        if (verdict.kind === 'detection') outcome.detections.push(verdict.parsed);
        else outcome.ignored += 1;
        return;
    }
  });
  const cursor = minOpenStart !== undefined ? Math.min(minOpenStart, maxEndedStart ?? minOpenStart) : maxEndedStart;
  if (cursor !== undefined) outcome.cursor = String(cursor);
  return outcome;
}

/** Root shapes accepted as a list: a bare array (the documented reply) or `{events: [...]}`. */
export function eventsListOf(root: unknown): readonly unknown[] | undefined {
  if (Array.isArray(root)) return root;
  if (isRecord(root) && Array.isArray(root.events)) return root.events;
  return undefined;
}
