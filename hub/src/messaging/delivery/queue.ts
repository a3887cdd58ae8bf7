/**
 * The delivery queue's SQL (docs/messaging.md "Delivery", "Exactly once"). Items are
 * claimed per chat with FOR UPDATE SKIP LOCKED and tied to one `telegram_messages` row in
 * the claim's transaction (`prepared`); the row turns `sending` in its own commit just
 * before the request leaves, and `sent` with the items in one transaction after. A worker
 * that dies leaves `prepared` (never sent: resent plainly) or `sending` (may have arrived:
 * resent once, marked as a possible repeat). Times come from the injected clock.
 */
import type { DbSession } from '../../db/session.ts';
import { deliveryRetry, MAX_DELIVERY_TRIES } from './retry.ts';

export interface DueChats {
  due: string[];
  /** When the next not-yet-due chat becomes due (aggregation window or retry backoff). */
  nextDueAt: Date | null;
}

/**
 * Chats with pending items, due when their oldest new item has waited out the aggregation
 * window or a retried item's backoff is over.
 */
export async function dueChats(db: DbSession, now: Date, windowMs: number, limit = 50): Promise<DueChats> {
  const rows = await db.sql<{ chat_id: string; due_at: Date }>(
    `SELECT chat_id, min(CASE WHEN attempts > 0 THEN next_retry_at ELSE greatest(next_retry_at, created_at + $2::int * interval '1 millisecond') END) AS due_at
     FROM notification_queue WHERE status = 'pending' AND channel = 'telegram' AND chat_id IS NOT NULL
     GROUP BY chat_id ORDER BY due_at LIMIT $1`,
    [limit, windowMs],
  );
  const due: string[] = [];
  let nextDueAt: Date | null = null;
  for (const r of rows) {
    const at = new Date(r.due_at);
    if (at.getTime() <= now.getTime()) due.push(String(r.chat_id));
    else if (!nextDueAt || at < nextDueAt) nextDueAt = at;
  }
  return { due, nextDueAt };
}

export interface ClaimedMessage {
  messageId: string;
  chatId: string;
  itemIds: string[];
}

/**
 * Claims the chat's pending items (at most `limit`, oldest first) into one prepared message.
 * A chat unlinked or muted since its items were queued gets none of them: they turn
 * `suppressed` (`unlinked` / `muted`), as if the alert had come after.
 */
export async function claimChat(db: DbSession, chatId: string, now: Date, limit = 50): Promise<ClaimedMessage | null> {
  return db.transaction(async (tx) => {
    const [link] = await tx.sql<{ is_active: boolean; muted_until: Date | null }>(
      `SELECT is_active, muted_until FROM telegram_links WHERE chat_id = $1::bigint`,
      [chatId],
    );
    const silent = !link?.is_active ? 'unlinked' : link.muted_until && new Date(link.muted_until) > now ? 'muted' : undefined;
    if (silent) {
      await tx.sql(
        `UPDATE notification_queue SET status = 'suppressed', last_error = $2 WHERE chat_id = $1::bigint AND channel = 'telegram' AND status = 'pending'`,
        [chatId, silent],
      );
      return null;
    }
    const picked = await tx.sql<{ id: string }>(
      `SELECT id FROM notification_queue
       WHERE chat_id = $1::bigint AND channel = 'telegram' AND status = 'pending' AND next_retry_at <= $2::timestamptz
       ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [chatId, now.toISOString(), limit],
    );
    if (picked.length === 0) return null;
    const [message] = await tx.sql<{ id: string }>(
      `INSERT INTO telegram_messages (chat_id, state, alerts, created_at) VALUES ($1::bigint, 'prepared', $2, $3::timestamptz) RETURNING id`,
      [chatId, picked.length, now.toISOString()],
    );
    const ids = picked.map((p) => String(p.id));
    await tx.sql(
      `UPDATE notification_queue SET status = 'processing', attempts = attempts + 1, locked_at = $2::timestamptz, message_id = $3::bigint
       WHERE id IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
      [JSON.stringify(ids), now.toISOString(), message?.id],
    );
    return { messageId: String(message?.id), chatId, itemIds: ids };
  });
}

/** Items claimed into a message they did not fit in: back to the queue, attempt refunded. */
export async function releaseItems(db: DbSession, messageId: string, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.sql(
      `UPDATE notification_queue SET status = 'pending', attempts = greatest(attempts - 1, 0), locked_at = NULL, message_id = NULL
       WHERE message_id = $1::bigint AND status = 'processing' AND id IN (SELECT value::bigint FROM json_array_elements_text($2::json))`,
      [messageId, JSON.stringify(itemIds)],
    );
    await tx.sql(`UPDATE telegram_messages SET alerts = alerts - $2 WHERE id = $1::bigint`, [messageId, itemIds.length]);
  });
}

/** The commit just before the request leaves: from here on the outcome may be unknown. */
export async function markSending(db: DbSession, messageId: string, method: string, now: Date): Promise<boolean> {
  const rows = await db.sql(
    `UPDATE telegram_messages SET state = 'sending', method = $2, sending_at = $3::timestamptz WHERE id = $1::bigint AND state = 'prepared' RETURNING id`,
    [messageId, method, now.toISOString()],
  );
  return rows.length === 1;
}

export async function settleSent(db: DbSession, message: ClaimedMessage, platformMessageId: number | null, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.sql(`UPDATE telegram_messages SET state = 'sent', sent_at = $2::timestamptz, platform_message_id = $3 WHERE id = $1::bigint`, [
      message.messageId,
      now.toISOString(),
      platformMessageId,
    ]);
    await tx.sql(
      `UPDATE notification_queue SET status = 'sent', sent_at = $2::timestamptz, locked_at = NULL, last_error = NULL WHERE message_id = $1::bigint AND status = 'processing'`,
      [message.messageId, now.toISOString()],
    );
    await tx.sql(`UPDATE telegram_links SET last_delivery_at = $2::timestamptz WHERE chat_id = $1::bigint`, [message.chatId, now.toISOString()]);
  });
}

export type Failure = { kind: 'rate_limited'; error: string; retryAt: Date } | { kind: 'blocked'; error: string } | { kind: 'error'; error: string };

/** Settles a failed send; returns how many items ended `failed`. */
export async function settleFailed(db: DbSession, message: ClaimedMessage, failure: Failure, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.sql(`UPDATE telegram_messages SET state = 'failed', last_error = $2 WHERE id = $1::bigint`, [message.messageId, failure.error.slice(0, 1000)]);
    if (failure.kind === 'rate_limited') {
      // The platform asked everyone to wait: no attempt spent.
      await tx.sql(
        `UPDATE notification_queue SET status = 'pending', attempts = greatest(attempts - 1, 0), locked_at = NULL, message_id = NULL, next_retry_at = $2::timestamptz, last_error = $3
         WHERE message_id = $1::bigint AND status = 'processing'`,
        [message.messageId, failure.retryAt.toISOString(), failure.error.slice(0, 1000)],
      );
      return 0;
    }
    if (failure.kind === 'blocked') {
      // The user blocked the bot: the link goes inactive (the dashboard shows it) and
      // nothing more is tried for this chat.
      await tx.sql(`UPDATE telegram_links SET is_active = false WHERE chat_id = $1::bigint`, [message.chatId]);
      const rows = await tx.sql(
        `UPDATE notification_queue SET status = 'failed', locked_at = NULL, last_error = $3, sent_at = NULL
         WHERE channel = 'telegram' AND chat_id = $2::bigint AND (message_id = $1::bigint AND status = 'processing' OR status = 'pending') RETURNING id`,
        [message.messageId, message.chatId, failure.error.slice(0, 1000)],
      );
      return rows.length;
    }
    const items = await tx.sql<{ id: string; attempts: number }>(
      `SELECT id, attempts FROM notification_queue WHERE message_id = $1::bigint AND status = 'processing'`,
      [message.messageId],
    );
    let failed = 0;
    for (const item of items) {
      const next = deliveryRetry(Number(item.attempts), now);
      if (next.status === 'failed') failed += 1;
      await tx.sql(
        `UPDATE notification_queue SET status = $2, locked_at = NULL, message_id = CASE WHEN $2 = 'failed' THEN message_id END, last_error = $3,
                next_retry_at = COALESCE($4::timestamptz, next_retry_at)
         WHERE id = $1::bigint`,
        [item.id, next.status, failure.error.slice(0, 1000), next.status === 'pending' ? next.nextRetryAt.toISOString() : null],
      );
    }
    return failed;
  });
}

/**
 * Claims older than `cutoff` whose worker died: a `prepared` message never left (the items
 * go back with their attempt refunded); a `sending` one may have arrived (the message is
 * `unknown`, the items go back marked `uncertain` so the resend says it may be a repeat).
 */
export async function reapStaleDeliveries(db: DbSession, cutoff: Date, now: Date): Promise<{ resent: number; uncertain: number; failed: number }> {
  const rows = await db.sql<{ status: string; uncertain: boolean; was_sending: boolean }>(
    `WITH stale AS (
       SELECT q.id, (m.state = 'sending') AS was_sending FROM notification_queue q LEFT JOIN telegram_messages m ON m.id = q.message_id
       WHERE q.status = 'processing' AND q.channel = 'telegram' AND q.locked_at < $1::timestamptz
       FOR UPDATE OF q SKIP LOCKED
     ), messages AS (
       UPDATE telegram_messages m SET state = CASE WHEN m.state = 'sending' THEN 'unknown' ELSE 'failed' END,
              last_error = 'the worker stopped before this message was settled'
       WHERE m.id IN (SELECT q.message_id FROM notification_queue q JOIN stale s ON s.id = q.id) AND m.state IN ('prepared', 'sending')
     )
     UPDATE notification_queue q
     SET status = CASE WHEN s.was_sending IS TRUE AND q.attempts >= $3 THEN 'failed' ELSE 'pending' END,
         attempts = CASE WHEN s.was_sending IS TRUE THEN q.attempts ELSE greatest(q.attempts - 1, 0) END,
         uncertain = q.uncertain OR s.was_sending IS TRUE,
         locked_at = NULL, message_id = NULL, next_retry_at = $2::timestamptz,
         last_error = 'claimed by a worker that stopped before settling it'
     FROM stale s WHERE q.id = s.id
     RETURNING q.status, q.uncertain, s.was_sending`,
    [cutoff.toISOString(), now.toISOString(), MAX_DELIVERY_TRIES],
  );
  return {
    resent: rows.filter((r) => r.status === 'pending').length,
    uncertain: rows.filter((r) => r.was_sending === true).length,
    failed: rows.filter((r) => r.status === 'failed').length,
  };
}

/** The global pause a 429 set (shared by every worker on this database). */
export async function pausedUntil(db: DbSession): Promise<Date | null> {
  const [row] = await db.sql<{ value: string }>(`SELECT value FROM telegram_bot_state WHERE key = 'paused_until'`);
  return row ? new Date(row.value) : null;
}

export async function pauseSending(db: DbSession, until: Date): Promise<void> {
  await db.sql(
    `INSERT INTO telegram_bot_state (key, value, updated_at) VALUES ('paused_until', $1, now())
     ON CONFLICT (key) DO UPDATE SET value = CASE WHEN telegram_bot_state.value::timestamptz > EXCLUDED.value::timestamptz THEN telegram_bot_state.value ELSE EXCLUDED.value END, updated_at = now()`,
    [until.toISOString()],
  );
}
