import type { PacketStream, ParseOutcome } from '@alpr/shared/adapters/types';
import { emptyOutcome } from '@alpr/shared/adapters/types';
import { eventsListOf } from '@alpr/shared/adapters/vendor-b/events-list';
import { ApplianceError } from '../errors.ts';
import { EVENTS_PAGE, cameraIdsOf } from './vendor-b-console.ts';
import type { VendorBConsole } from './vendor-b-console.ts';

/**
 * The catch-up query of the vendor_b socket runner: every smart event that started in
 * [fromMs, toMs] goes into the runner's stream decoder as an Integration-style `add`
 * message (`{type:"add", item}`, which the decoder accepts, docs/adapters.md), so it
 * merges with what the socket already told (or will tell) about the same event id.
 *
 * Unlike the pull runner this asks for every smart event, not only those tagged
 * `licensePlate`: an event still in progress may get its plate in a later socket
 * update, and the decoder ignores updates for events it never saw.
 */

const MAX_PAGES = 20;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(into: ParseOutcome, from: ParseOutcome): void {
  into.detections.push(...from.detections);
  into.errors.push(...from.errors);
  into.ignored += from.ignored;
}

export async function catchUpMessages(nvr: VendorBConsole, stream: PacketStream, range: { fromMs: number; toMs: number }): Promise<ParseOutcome> {
  const outcome = emptyOutcome();
  let from = range.fromMs;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await nvr.queryEvents({ startMs: from, endMs: Math.max(from, range.toMs), plateOnly: false });
    if (res.status !== 200) throw new ApplianceError('camera_unreachable', `catch-up events query answered HTTP ${res.status}`);
    let list: readonly unknown[] | undefined;
    try {
      list = eventsListOf(JSON.parse(res.body.toString('utf8')));
    } catch {
      list = undefined;
    }
    if (!list) {
      outcome.errors.push({ reason: 'catch-up events reply is not an event list' });
      return outcome;
    }
    await nvr.refreshIfNeeded(cameraIdsOf(list));
    let lastStart = from;
    for (const item of list) {
      if (!isRecord(item)) continue;
      if (typeof item.start === 'number' && item.start > lastStart) lastStart = item.start;
      const message = JSON.stringify({ type: 'add', item: { modelKey: 'event', ...item } });
      merge(outcome, stream.push(Buffer.from(message, 'utf8')));
    }
    // A full page: continue from its last start (inclusive; repeats are ignored by the decoder).
    if (list.length < EVENTS_PAGE || lastStart === from) return outcome;
    from = lastStart;
  }
  return outcome;
}
