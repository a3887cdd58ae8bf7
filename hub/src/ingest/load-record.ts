/**
 * A collector's upload load, folded per minute at ingest (migration 0024
 * `collector_load_minutes`) for the load thresholds (docs/health.md "Load"). One upsert per
 * batch request, after the batch's own transaction: a lost count never costs a detection.
 */
import type { Clock } from '../platform/clock.ts';
import type { StatementSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';

export interface UploadTally {
  /** Detections in the batch (0 for a request refused before its items were read). */
  items: number;
  rejectedItems: number;
  /** The request failed as a whole (4xx/5xx). */
  failed: boolean;
  bytes: number;
}

export async function recordUpload(deps: { db: StatementSession; clock: Clock; log: Log }, collectorId: string, tally: UploadTally): Promise<void> {
  try {
    await deps.db.sql(
      `INSERT INTO collector_load_minutes AS m (collector_id, minute, requests, failed_requests, items, rejected_items, max_batch_items, max_request_bytes)
       VALUES ($1::uuid, date_trunc('minute', $2::timestamptz, 'UTC'), 1, $3, $4, $5, $4, $6)
       ON CONFLICT (collector_id, minute) DO UPDATE SET requests = m.requests + 1, failed_requests = m.failed_requests + EXCLUDED.failed_requests,
         items = m.items + EXCLUDED.items, rejected_items = m.rejected_items + EXCLUDED.rejected_items,
         max_batch_items = GREATEST(m.max_batch_items, EXCLUDED.max_batch_items), max_request_bytes = GREATEST(m.max_request_bytes, EXCLUDED.max_request_bytes)`,
      [collectorId, deps.clock.now().toISOString(), tally.failed ? 1 : 0, tally.items, tally.rejectedItems, tally.bytes],
    );
  } catch (err) {
    deps.log.warn({ err, collector_id: collectorId }, 'upload load not recorded');
  }
}
