/**
 * A collector's upload load, per minute (migration 0024 `collector_load_minutes`), for the
 * load thresholds (docs/health.md "Load"). A batch request adds its tally here, in memory, and
 * answers at once; the sums of every collector and minute go to the table in one upsert, at
 * most FLUSH_MS after the first of them.
 *
 * Written per request, the upsert was a transaction of its own before every answer: two round
 * trips (its text was parsed each time) and a commit's flush to disk. Measured in the ingest
 * bench without it, a tenth more reads a second without images (docs/performance.md "Three
 * round trips a batch instead of six").
 *
 * A count is never in a batch's way: a failed write gives its sums back for the next one,
 * minutes older than the longest load window are dropped (with a warning) while the database
 * stays down, and `stop` writes what is left. A crash loses at most the last second's counts.
 */
import type { StatementSession } from '../db/session.ts';
import type { Clock } from '../platform/clock.ts';
import type { Log } from '../platform/log.ts';
import { dropBefore, foldUpload, mergeLoad, type MinuteLoad, type PendingLoads, type UploadTally } from './load-fold.ts';

export type { UploadTally } from './load-fold.ts';

/** How long sums wait in memory: the thresholds look at whole minutes, a second is nothing to them. */
export const FLUSH_MS = 1_000;
/** The longest load window (docs/health.md: the error rate's 15 minutes): older sums are of no use. */
const HELD_MS = 15 * 60_000;

export interface UploadLoad {
  /** Counts one batch request (synchronous: the request never waits for the database). */
  add(collectorId: string, tally: UploadTally): void;
  /** Writes what is held now, and waits (tests, and a look at the table right after uploads). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (shutdown, before the database closes). */
  stop(): Promise<void>;
}

export function createUploadLoad(deps: { db: StatementSession; clock: Clock; log: Log }, flushMs = FLUSH_MS): UploadLoad {
  let pending: PendingLoads = new Map();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let stopped = false;
  /** A write failed and none has succeeded since: said once, not once a second. */
  let failing = false;

  const schedule = (): void => {
    if (timer || stopped || pending.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, flushMs);
    // A hub that stops without `stop` (a test's) must not be held open by a count.
    timer.unref();
  };

  const write = async (): Promise<void> => {
    const loads = [...pending.values()];
    pending = new Map();
    if (loads.length === 0) return;
    try {
      await writeLoads(deps.db, loads);
    } catch (err) {
      for (const load of loads) mergeLoad(pending, load);
      const dropped = dropBefore(pending, deps.clock.now().getTime() - HELD_MS);
      if (dropped > 0) deps.log.warn({ err, dropped_requests: dropped }, 'upload load of minutes past the longest load window dropped');
      else if (!failing) deps.log.warn({ err }, 'upload load not recorded yet, kept for the next write');
      failing = true;
      return;
    }
    if (failing) deps.log.info('upload load recorded again');
    failing = false;
  };

  // One write at a time: a second waits for the first, then writes what came meanwhile.
  const flush = async (): Promise<void> => {
    while (writing) await writing;
    writing = write().finally(() => {
      writing = undefined;
      schedule();
    });
    await writing;
  };

  return {
    add(collectorId, tally) {
      foldUpload(pending, collectorId, deps.clock.now(), tally);
      schedule();
    },
    flush,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}

/**
 * Every held minute in one statement, in key order (two hub processes writing the same rows
 * lock them in the same order). A collector removed since its requests is left out: its rows
 * went with it (ON DELETE CASCADE).
 */
async function writeLoads(db: StatementSession, loads: readonly MinuteLoad[]): Promise<void> {
  const rows = loads.map((l) => ({
    collector_id: l.collectorId,
    minute: new Date(l.minute).toISOString(),
    requests: l.requests,
    failed_requests: l.failedRequests,
    items: l.items,
    rejected_items: l.rejectedItems,
    max_batch_items: l.maxBatchItems,
    max_request_bytes: l.maxRequestBytes,
  }));
  await db.sql(
    `INSERT INTO collector_load_minutes AS m (collector_id, minute, requests, failed_requests, items, rejected_items, max_batch_items, max_request_bytes)
     SELECT v.collector_id, v.minute, v.requests, v.failed_requests, v.items, v.rejected_items, v.max_batch_items, v.max_request_bytes
       FROM json_to_recordset($1::json) AS v (collector_id uuid, minute timestamptz, requests int, failed_requests int, items int,
                                               rejected_items int, max_batch_items int, max_request_bytes bigint)
      WHERE EXISTS (SELECT 1 FROM collectors c WHERE c.id = v.collector_id)
      ORDER BY v.collector_id, v.minute
     ON CONFLICT (collector_id, minute) DO UPDATE SET requests = m.requests + EXCLUDED.requests,
       failed_requests = m.failed_requests + EXCLUDED.failed_requests, items = m.items + EXCLUDED.items,
       rejected_items = m.rejected_items + EXCLUDED.rejected_items,
       max_batch_items = GREATEST(m.max_batch_items, EXCLUDED.max_batch_items),
       max_request_bytes = GREATEST(m.max_request_bytes, EXCLUDED.max_request_bytes)`,
    [JSON.stringify(rows)],
    { prepare: true },
  );
}
