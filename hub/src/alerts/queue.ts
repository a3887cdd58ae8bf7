/**
 * The alert queue's SQL (docs/alerts.md; the queue pattern in docs/conventions.md "Boundaries"):
 * claim with FOR UPDATE SKIP LOCKED, return stale claims, settle items. Times come from the
 * injected clock.
 */
import type { DbSession } from '../db/session.ts';
import type { ReadContext } from '../watchlists/scope.ts';
import { retryDecision } from './retry.ts';

export interface ClaimedItem {
  id: string;
  detectionPk: string;
  attempts: number;
  /** The detection's normalized plate; null for an item queued before migration 0021. */
  plateNormalized: string | null;
  /** Where, which way and when it was read (0044); undefined for an item queued before. */
  read?: ReadContext;
}

type ClaimedRow = {
  id: string;
  detection_id: string;
  attempts: number;
  plate_normalized: string | null;
  collector_id: string | null;
  site_id: string | null;
  camera_id: string | null;
  direction: string | null;
  captured_at: Date | string | null;
};

function claimed(r: ClaimedRow): ClaimedItem {
  const item: ClaimedItem = { id: String(r.id), detectionPk: String(r.detection_id), attempts: Number(r.attempts), plateNormalized: r.plate_normalized };
  if (r.collector_id !== null && r.camera_id !== null && r.direction !== null && r.captured_at !== null) {
    item.read = {
      collectorId: r.collector_id,
      cameraId: r.camera_id,
      siteId: r.site_id,
      direction: r.direction as ReadContext['direction'],
      capturedAt: new Date(r.captured_at),
    };
  }
  return item;
}

/**
 * Up to `limit` pending items, oldest first, marked `processing` and locked at `now`. A
 * new item (attempts 0) is due at once whatever its default `next_retry_at` says (the
 * database's clock, not ours); a retried one waits for its backoff.
 */
export async function claimItems(db: DbSession, limit: number, now: Date): Promise<ClaimedItem[]> {
  const rows = await db.sql<ClaimedRow>(
    `WITH picked AS (
       SELECT id FROM alert_queue
       WHERE status = 'pending' AND (attempts = 0 OR next_retry_at <= $2::timestamptz)
       ORDER BY created_at, id
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     UPDATE alert_queue q SET status = 'processing', attempts = q.attempts + 1, locked_at = $2::timestamptz
     FROM picked WHERE q.id = picked.id
     RETURNING q.id, q.detection_id, q.attempts, q.plate_normalized, q.collector_id::text AS collector_id, q.site_id::text AS site_id,
               q.camera_id, q.direction, q.captured_at`,
    [limit, now.toISOString()],
    { prepare: true },
  );
  return rows.map(claimed).sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Settles items inside the transaction that raised their alerts, by removing them: the queue
 * holds only work not done yet and what gave up (migration 0047). Marked `complete` instead,
 * every read kept a row and its index entries for as long as retention kept the read, and
 * each claim walked past the entries of every item settled since the last vacuum: over one
 * ingest bench run the worker's database time per batch of 50 grew from 1.9 to 11.6 ms
 * (docs/performance.md "The alert queue keeps only open work").
 */
export async function completeItems(tx: DbSession, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.sql(`DELETE FROM alert_queue WHERE id IN (SELECT value::bigint FROM json_array_elements_text($1::json))`, [JSON.stringify(ids)], {
    prepare: true,
  });
}

/** One item's failed try: back to `pending` after its backoff, or `failed` after the last. */
export async function failItem(db: DbSession, item: ClaimedItem, error: string, now: Date): Promise<'pending' | 'failed'> {
  const decision = retryDecision(item.attempts, now);
  await db.sql(
    `UPDATE alert_queue SET status = $2, last_error = $3, locked_at = NULL, next_retry_at = COALESCE($4::timestamptz, next_retry_at), processed_at = $5::timestamptz
     WHERE id = $1::bigint AND status = 'processing'`,
    [
      item.id,
      decision.status,
      error.slice(0, 1000),
      decision.status === 'pending' ? decision.nextRetryAt.toISOString() : null,
      decision.status === 'failed' ? decision.processedAt.toISOString() : null,
    ],
  );
  return decision.status;
}

/**
 * Items claimed before `cutoff` and never settled: their worker died or hung. Each goes
 * back to `pending` (or `failed` when that claim was its last attempt).
 */
export async function reapStaleClaims(db: DbSession, cutoff: Date, now: Date, maxAttempts: number): Promise<{ requeued: number; failed: number }> {
  const rows = await db.sql<{ status: string }>(
    `UPDATE alert_queue
     SET status = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'pending' END,
         locked_at = NULL,
         next_retry_at = $2::timestamptz,
         processed_at = CASE WHEN attempts >= $3 THEN $2::timestamptz ELSE NULL END,
         last_error = 'claimed by a worker that stopped before finishing (claim older than the lock timeout)'
     WHERE status = 'processing' AND locked_at < $1::timestamptz
     RETURNING status`,
    [cutoff.toISOString(), now.toISOString(), maxAttempts],
  );
  return { requeued: rows.filter((r) => r.status === 'pending').length, failed: rows.filter((r) => r.status === 'failed').length };
}
