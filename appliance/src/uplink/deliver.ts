import type { Backpressure } from '@alpr/shared/protocol/batch';
import type { UploadOutcome } from './classify-response.ts';
import type { EncodedBatch } from './encode-batch.ts';
import { encodeBatch } from './encode-batch.ts';
import type { BufferedItem, BufferedItemId, UplinkBufferPort, UplinkLog } from './ports.ts';
import { splitResults } from './results.ts';

/**
 * Delivers one batch taken from the buffer, including the poison-item hunt: when the hub
 * refuses a whole body (400/413/415/422), the batch is halved and each half sent on its
 * own, oldest half first, until the refused part is a single item, which is then marked
 * rejected. A hub that refuses EVERY single item (a hub bug, a protocol mismatch) must not
 * empty the buffer, so after `maxConsecutivePoison` single-item refusals with no delivery in
 * between, the hunt stops and the batch is treated as a retryable failure.
 */
export interface DeliverDeps {
  buffer: UplinkBufferPort;
  log: UplinkLog;
  upload: (batch: EncodedBatch) => Promise<UploadOutcome>;
  maxConsecutivePoison: number;
}

export interface DeliveryTotals {
  stored: number;
  duplicate: number;
  rejected: number;
  requests: number;
  bytes: number;
}

/** `suspended`: the hub refused the batch because an admin suspended the site; nothing was stored. */
export type DeliveryEnd =
  | { kind: 'done'; backpressure?: Backpressure }
  | { kind: 'key_rejected'; reason?: 'collector_replaced' }
  | { kind: 'suspended'; retryAfterMs: number }
  | { kind: 'failed'; reason: string; status?: number; retryAfterMs?: number };

/** Why rows go back to waiting (the buffer keeps it as the row's last attempt note). */
function releaseReason(end: DeliveryEnd): string {
  if (end.kind === 'failed') return end.reason;
  if (end.kind === 'key_rejected') return end.reason ? `HTTP 401: ${end.reason}` : 'HTTP 401';
  if (end.kind === 'suspended') return 'HTTP 403: collector_suspended';
  return 'not acknowledged';
}

export interface DeliveryReport {
  end: DeliveryEnd;
  totals: DeliveryTotals;
  /** Rows that left the upload queue (acknowledged or rejected) in this delivery. */
  progressed: number;
  /** Single-item refusals in a row, carried over from the previous delivery and updated. */
  consecutivePoison: number;
}

interface Run {
  totals: DeliveryTotals;
  resolved: Set<BufferedItemId>;
  poison: number;
}

export async function deliverBatch(deps: DeliverDeps, items: readonly BufferedItem[], consecutivePoisonBefore: number): Promise<DeliveryReport> {
  const run: Run = {
    totals: { stored: 0, duplicate: 0, rejected: 0, requests: 0, bytes: 0 },
    resolved: new Set(),
    poison: consecutivePoisonBefore,
  };
  let end: DeliveryEnd = { kind: 'failed', reason: 'delivery interrupted' };
  try {
    end = await sendAll(deps, items, run);
  } finally {
    // Whatever happened (even a throw from the buffer), rows taken but not settled go back.
    const unsettled = items.filter((item) => !run.resolved.has(item.id)).map((item) => item.id);
    if (unsettled.length > 0 && deps.buffer.release) {
      await deps.buffer.release(unsettled, releaseReason(end));
    }
  }
  return { end, totals: run.totals, progressed: run.resolved.size, consecutivePoison: run.poison };
}

async function sendAll(deps: DeliverDeps, items: readonly BufferedItem[], run: Run): Promise<DeliveryEnd> {
  const { totals } = run;
  // A stack of sub-batches; the first (oldest) half is pushed last so it goes first.
  const stack: BufferedItem[][] = [[...items]];
  for (let part = stack.pop(); part; part = stack.pop()) {
    const encoded = encodeBatch(part);
    totals.requests += 1;
    totals.bytes += encoded.byteLength;
    const outcome = await deps.upload(encoded);
    if (outcome.kind === 'key_rejected') return outcome.reason ? { kind: 'key_rejected', reason: outcome.reason } : { kind: 'key_rejected' };
    // Mid-hunt too: a suspended hub stored nothing, so no sub-batch is to blame and none is split further.
    if (outcome.kind === 'suspended') return { kind: 'suspended', retryAfterMs: outcome.retryAfterMs };
    if (outcome.kind === 'retry') {
      return { kind: 'failed', reason: outcome.reason, status: outcome.status, retryAfterMs: outcome.retryAfterMs };
    }
    if (outcome.kind === 'content_rejected') {
      if (part.length > 1) {
        const middle = Math.ceil(part.length / 2);
        stack.push(part.slice(middle), part.slice(0, middle));
        deps.log.warn({ status: outcome.status, size: part.length, reason: outcome.reason }, 'uplink: hub refused a batch, splitting it');
        continue;
      }
      const [only] = part;
      if (!only) continue;
      if (run.poison >= deps.maxConsecutivePoison) {
        return { kind: 'failed', status: outcome.status, reason: `hub refuses single detections (${outcome.reason}); stopped rejecting` };
      }
      run.poison += 1;
      await deps.buffer.markRejected(only.id, outcome.reason);
      run.resolved.add(only.id);
      totals.rejected += 1;
      deps.log.warn({ detectionId: only.detection.detection_id, reason: outcome.reason }, 'uplink: detection refused by hub, marked rejected');
      continue;
    }
    const sent = part.map((item) => ({ id: item.id, detectionId: item.detection.detection_id }));
    const split = splitResults(sent, outcome.results);
    const acknowledged = [...split.stored, ...split.duplicate];
    if (acknowledged.length > 0) {
      await deps.buffer.markUploaded(acknowledged);
      for (const id of acknowledged) run.resolved.add(id);
      run.poison = 0;
    }
    for (const { id, reason } of split.rejected) {
      await deps.buffer.markRejected(id, reason);
      run.resolved.add(id);
    }
    totals.stored += split.stored.length;
    totals.duplicate += split.duplicate.length;
    totals.rejected += split.rejected.length;
    if (split.unacknowledged.length > 0 || split.mismatched > 0) {
      deps.log.warn(
        { unacknowledged: split.unacknowledged.length, mismatched: split.mismatched },
        'uplink: hub did not acknowledge every item; the rest stay buffered',
      );
    }
    if (outcome.backpressure?.active && outcome.backpressure.recommended_delay_seconds > 0) {
      // Sub-batches still on the stack stay buffered: nothing more goes out until the delay.
      return { kind: 'done', backpressure: outcome.backpressure };
    }
  }
  return { kind: 'done' };
}
