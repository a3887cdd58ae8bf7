/**
 * Pure: batch requests' tallies summed per collector and minute, as `collector_load_minutes`
 * (migration 0024) keeps them, before they are written (load-record.ts).
 */

export interface UploadTally {
  /** Detections in the batch (0 for a request refused before its items were read). */
  items: number;
  rejectedItems: number;
  /** The request failed as a whole (4xx/5xx). */
  failed: boolean;
  bytes: number;
}

/** One collector's minute: the columns of `collector_load_minutes`. */
export interface MinuteLoad {
  collectorId: string;
  /** The minute's start, UTC, in ms. */
  minute: number;
  requests: number;
  failedRequests: number;
  items: number;
  rejectedItems: number;
  maxBatchItems: number;
  maxRequestBytes: number;
}

/** Sums waiting to be written, by collector and minute. */
export type PendingLoads = Map<string, MinuteLoad>;

const MINUTE_MS = 60_000;

const keyOf = (collectorId: string, minute: number): string => `${collectorId} ${minute}`;

/** Adds one request's tally to its collector's minute (by `at`, UTC). */
export function foldUpload(pending: PendingLoads, collectorId: string, at: Date, tally: UploadTally): void {
  const minute = Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS;
  mergeLoad(pending, {
    collectorId,
    minute,
    requests: 1,
    failedRequests: tally.failed ? 1 : 0,
    items: tally.items,
    rejectedItems: tally.rejectedItems,
    maxBatchItems: tally.items,
    maxRequestBytes: tally.bytes,
  });
}

/** Adds a minute's sums (one request's, or a failed write's given back) to `pending`. */
export function mergeLoad(pending: PendingLoads, load: MinuteLoad): void {
  const key = keyOf(load.collectorId, load.minute);
  const held = pending.get(key);
  if (!held) {
    pending.set(key, { ...load });
    return;
  }
  held.requests += load.requests;
  held.failedRequests += load.failedRequests;
  held.items += load.items;
  held.rejectedItems += load.rejectedItems;
  held.maxBatchItems = Math.max(held.maxBatchItems, load.maxBatchItems);
  held.maxRequestBytes = Math.max(held.maxRequestBytes, load.maxRequestBytes);
}

/** Drops the minutes that started before `cutoff` (ms); returns how many requests they held. */
export function dropBefore(pending: PendingLoads, cutoff: number): number {
  let requests = 0;
  for (const [key, load] of pending) {
    if (load.minute >= cutoff) continue;
    requests += load.requests;
    pending.delete(key);
  }
  return requests;
}
