import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import type { DbSession } from '../db/session.ts';
import type { Clock } from '../platform/clock.ts';
import { isBigintId } from '@alpr/shared/validation/params';

/**
 * Alert checks that failed for good (five tries, alerts/retry.ts). Each may be a watchlist hit
 * nobody saw, so they are listed for admins with their error and can be put back in the queue
 * (docs/alerts.md "Failed checks"). A requeued item is an ordinary pending item: the worker
 * raises its alert once (the alerts table is unique per detection and watchlist).
 */
export interface FailedAlertCheck {
  id: string;
  detection_id: string;
  plate_number: string;
  captured_at: string;
  site_name: string;
  attempts: number;
  last_error: string | null;
  failed_at: string | null;
}

const SHOWN = 200;

export async function listFailedAlertChecks(db: DbSession): Promise<{ items: FailedAlertCheck[]; total: number }> {
  const rows = await db.sql<{
    id: string;
    detection_id: string;
    plate_number: string;
    captured_at: Date;
    site_name: string;
    attempts: number;
    last_error: string | null;
    processed_at: Date | null;
  }>(
    `SELECT q.id::text AS id, k.detection_id, d.plate_number, d.captured_at, c.site_name, q.attempts, q.last_error, q.processed_at
       FROM alert_queue q
       JOIN detection_keys k ON k.detection_pk = q.detection_id
       JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
       JOIN collectors c ON c.id = d.collector_id
      WHERE q.status = 'failed'
      ORDER BY q.processed_at DESC NULLS LAST, q.id DESC
      LIMIT ${SHOWN}`,
  );
  const [count] = await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM alert_queue WHERE status = 'failed'`);
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
  return {
    items: rows.map((r) => ({
      id: r.id,
      detection_id: r.detection_id,
      plate_number: r.plate_number,
      captured_at: new Date(r.captured_at).toISOString(),
      site_name: r.site_name,
      attempts: Number(r.attempts),
      last_error: r.last_error,
      failed_at: iso(r.processed_at),
    })),
    total: Number(count?.n ?? 0),
  };
}

/**
 * Back to `pending` with a fresh set of tries, in one transaction with its audit row. The
 * worker's poll (its safety net beside the ingest NOTIFY) picks it up within seconds; the
 * detections channel is left to ingest, whose payload the live feed reads as new detections.
 * `all`: every failed item.
 */
export async function requeueFailedAlertChecks(
  ctx: { db: DbSession; clock: Clock },
  actor: { userId: string },
  which: { id: string } | { all: true },
): Promise<{ requeued: number }> {
  if ('id' in which && !isBigintId(which.id)) throw new HubError('not_found', 'no such alert check');
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    if ('id' in which) {
      const [row] = await tx.sql<{ status: string }>(`SELECT status FROM alert_queue WHERE id = $1 FOR UPDATE`, [which.id]);
      if (!row) throw new HubError('not_found', 'no such alert check');
      if (row.status !== 'failed') throw new HubError('conflict', `alert check is ${row.status}: only a failed one can be requeued`);
    }
    const rows = await tx.sql<{ id: string; last_error: string | null }>(
      `UPDATE alert_queue SET status = 'pending', attempts = 0, next_retry_at = $1::timestamptz, processed_at = NULL, locked_at = NULL
        WHERE status = 'failed' ${'id' in which ? 'AND id = $2' : ''}
        RETURNING id::text AS id, last_error`,
      'id' in which ? [now.toISOString(), which.id] : [now.toISOString()],
    );
    await writeAudit(tx, {
      at: now,
      action: 'alert_check.requeued',
      actor: { userId: actor.userId },
      targetType: 'alert_check',
      targetId: 'id' in which ? which.id : null,
      detail: { count: rows.length, ...('id' in which ? { last_error: rows[0]?.last_error ?? null } : { all: true }) },
    });
    return { requeued: rows.length };
  });
}
