/**
 * The webhook delivery queue's SQL (docs/webhooks.md "Delivery"), the bot queue's pattern:
 * claim due rows with FOR UPDATE SKIP LOCKED (status, attempts, locked_at in one commit),
 * settle after the request, and a reaper that hands back the claims of a worker that died.
 * At least once: a reaped claim is sent again under the same message id, which is what
 * receivers dedupe on. Times come from the injected clock.
 */
import type { DbSession } from '../db/session.ts';
import { retryAfter } from '../platform/loops/backoff.ts';

/**
 * Waits before each retry: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h; the seventh failed try is
 * final (about 9 hours in all: a receiver down overnight still gets its events).
 */
export const WEBHOOK_RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;
export const MAX_WEBHOOK_TRIES = WEBHOOK_RETRY_DELAYS_MS.length + 1;

export interface ClaimedDelivery {
  id: string;
  targetId: string;
  messageId: string;
  url: string;
  /** The signing secret as stored: sealed, or in clear on a row not sealed yet (before 0034). */
  secret: { plain: string } | { ciphertext: Uint8Array; salt: Uint8Array };
  body: string;
  attempts: number;
}

/** Claims up to `limit` due deliveries of enabled targets, oldest due first. */
export async function claimDeliveries(db: DbSession, now: Date, limit = 20): Promise<ClaimedDelivery[]> {
  const rows = await db.sql<{
    id: string;
    target_id: string;
    message_id: string;
    url: string;
    secret: string | null;
    secret_ciphertext: Uint8Array | null;
    secret_salt: Uint8Array | null;
    body: string;
    attempts: number;
  }>(
    `WITH picked AS (
       SELECT d.id FROM webhook_deliveries d JOIN webhook_targets t ON t.id = d.target_id
       WHERE d.status = 'pending' AND d.next_retry_at <= $1::timestamptz AND t.enabled
       ORDER BY d.next_retry_at, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET status = 'processing', attempts = d.attempts + 1, locked_at = $1::timestamptz
     FROM picked p, webhook_targets t WHERE d.id = p.id AND t.id = d.target_id
     RETURNING d.id::text AS id, d.target_id::text AS target_id, d.message_id, t.url, t.secret, t.secret_ciphertext, t.secret_salt, d.body, d.attempts`,
    [now.toISOString(), limit],
  );
  return rows.map((r) => ({
    id: String(r.id),
    targetId: r.target_id,
    messageId: r.message_id,
    url: r.url,
    secret: r.secret !== null ? { plain: r.secret } : { ciphertext: r.secret_ciphertext ?? new Uint8Array(0), salt: r.secret_salt ?? new Uint8Array(0) },
    body: r.body,
    attempts: Number(r.attempts),
  }));
}

export async function settleSent(db: DbSession, delivery: ClaimedDelivery, status: number, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.sql(
      `UPDATE webhook_deliveries SET status = 'sent', sent_at = $2::timestamptz, locked_at = NULL, last_status = $3, last_error = NULL WHERE id = $1::bigint AND status = 'processing'`,
      [delivery.id, now.toISOString(), status],
    );
    await tx.sql(`UPDATE webhook_targets SET last_success_at = $2::timestamptz, last_status = $3 WHERE id = $1::uuid`, [
      delivery.targetId,
      now.toISOString(),
      status,
    ]);
  });
}

/** A failed try: back to pending after its backoff, or `failed` for good. Returns the outcome. */
export async function settleFailed(
  db: DbSession,
  delivery: ClaimedDelivery,
  failure: { status: number | null; error: string },
  now: Date,
): Promise<'pending' | 'failed'> {
  const next = retryAfter(WEBHOOK_RETRY_DELAYS_MS, delivery.attempts, now);
  const error = failure.error.slice(0, 1000);
  await db.transaction(async (tx) => {
    await tx.sql(
      `UPDATE webhook_deliveries SET status = $2, locked_at = NULL, last_status = $3, last_error = $4, next_retry_at = COALESCE($5::timestamptz, next_retry_at)
       WHERE id = $1::bigint AND status = 'processing'`,
      [delivery.id, next.status, failure.status, error, next.status === 'pending' ? next.nextRetryAt.toISOString() : null],
    );
    await tx.sql(`UPDATE webhook_targets SET last_failure_at = $2::timestamptz, last_status = $3, last_error = $4 WHERE id = $1::uuid`, [
      delivery.targetId,
      now.toISOString(),
      failure.status,
      error,
    ]);
  });
  return next.status;
}

/**
 * Claims older than `cutoff` whose worker stopped: the request may have arrived, so the try
 * counts, and the delivery goes again at once under its message id (or fails when it was the
 * last try).
 */
export async function reapStale(db: DbSession, cutoff: Date, now: Date): Promise<number> {
  const rows = await db.sql(
    `UPDATE webhook_deliveries SET status = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'pending' END, locked_at = NULL, next_retry_at = $2::timestamptz,
            last_error = 'claimed by a worker that stopped before settling it'
     WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'processing' AND locked_at < $1::timestamptz FOR UPDATE SKIP LOCKED) RETURNING id`,
    [cutoff.toISOString(), now.toISOString(), MAX_WEBHOOK_TRIES],
  );
  return rows.length;
}

/** When the next pending delivery of an enabled target falls due (null: none). */
export async function nextDueAt(db: DbSession): Promise<Date | null> {
  const [row] = await db.sql<{ at: Date | null }>(
    `SELECT min(d.next_retry_at) AS at FROM webhook_deliveries d JOIN webhook_targets t ON t.id = d.target_id WHERE d.status = 'pending' AND t.enabled`,
  );
  return row?.at ? new Date(row.at) : null;
}
