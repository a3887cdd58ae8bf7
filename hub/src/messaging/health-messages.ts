/**
 * Health alerts to the admins' bot chats (docs/health.md "Where they show"): every linked,
 * active chat of every active admin gets one text when an alert opens and one when it closes.
 * Queued in the evaluator's transaction (queueAdminMessages), sent by sendHealthMessages with
 * the delivery worker's rules: its send limits (messaging/delivery/send-limits.ts) and its
 * retries (1 s, 5 s, 30 s, then failed; a 429 costs no attempt and holds the batch for its
 * retry_after; messaging/delivery/retry.ts). Not subject to mutes, quiet hours or plate
 * cooldowns: those are about watchlist hits, and a site gone dark is an admin's business at
 * any hour.
 */
import type { Clock } from '../platform/clock.ts';
import type { DbSession, StatementSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';
import { BotApiError, type BotApi } from './bot-api.ts';
import { deliveryRetry, pauseAfter429 } from './delivery/retry.ts';
import type { SendLimits } from './delivery/send-limits.ts';

/** Where a site's name goes for an alert about the hub itself (no collector: docs/health.md "Search keys"). */
const HUB_NAME = 'Hub';

/** A claim holds a message this long; a sender that died is retried after it. */
const LEASE_MS = 60_000;
const BATCH = 20;

export async function queueAdminMessages(tx: StatementSession, now: Date, changes: { opened: readonly string[]; closed: readonly string[] }): Promise<void> {
  const events = [...changes.opened.map((id) => ({ id, event: 'opened' })), ...changes.closed.map((id) => ({ id, event: 'closed' }))];
  if (events.length === 0) return;
  await tx.sql(
    `INSERT INTO health_alert_messages (health_alert_id, event, chat_id, created_at, next_attempt_at)
     SELECT (e->>'id')::bigint, e->>'event', l.chat_id, $2::timestamptz, $2::timestamptz
       FROM jsonb_array_elements($1::jsonb) AS e
       CROSS JOIN telegram_links l JOIN users u ON u.id = l.user_id
      WHERE l.is_active AND u.is_active AND u.role = 'admin'
     ON CONFLICT (health_alert_id, event, chat_id) DO NOTHING`,
    [JSON.stringify(events), now.toISOString()],
  );
}

export function healthMessageText(
  event: 'opened' | 'closed',
  a: { message: string; opened_at: Date | string; closed_at: Date | string | null; site_name: string },
): string {
  if (event === 'opened') return `⚠️ Health: ${a.message}`;
  const minutes = a.closed_at ? Math.round((new Date(a.closed_at).getTime() - new Date(a.opened_at).getTime()) / 60_000) : 0;
  return `✅ Resolved after ${minutes} min (${a.site_name}): ${a.message}`;
}

export interface HealthSenderDeps {
  db: DbSession;
  clock: Clock;
  log: Log;
  api: BotApi;
  limits: SendLimits;
  /** Waits (the send limits' delay); tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

type Claimed = {
  id: string;
  event: 'opened' | 'closed';
  chat_id: string;
  attempts: number;
  message: string;
  opened_at: Date | string;
  closed_at: Date | string | null;
  site_name: string;
};

/** Sends the due messages; returns how many were sent. */
export async function sendHealthMessages(deps: HealthSenderDeps): Promise<number> {
  const now = deps.clock.now();
  const claimed = await deps.db.transaction((tx) =>
    tx.sql<Claimed>(
      `WITH due AS (
         SELECT id FROM health_alert_messages WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz
          ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
       ), leased AS (
         UPDATE health_alert_messages m SET next_attempt_at = $2::timestamptz, attempts = m.attempts + 1
           FROM due WHERE m.id = due.id
         RETURNING m.id, m.health_alert_id, m.event, m.chat_id, m.attempts
       )
       SELECT l.id::text AS id, l.event, l.chat_id::text AS chat_id, l.attempts, h.message, h.opened_at, h.closed_at, COALESCE(c.site_name, $3) AS site_name
         FROM leased l JOIN health_alerts h ON h.id = l.health_alert_id LEFT JOIN collectors c ON c.id = h.collector_id
        ORDER BY l.id`,
      [now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString(), HUB_NAME],
    ),
  );
  let sent = 0;
  for (const [i, m] of claimed.entries()) {
    const wait = deps.limits.reserve(m.chat_id, deps.clock.now().getTime());
    if (wait > 0) await (deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(wait);
    try {
      await deps.api.call('sendMessage', { chat_id: m.chat_id, text: healthMessageText(m.event, m) }, { timeoutMs: 30_000 });
      await deps.db.sql(`UPDATE health_alert_messages SET status = 'sent', sent_at = $2::timestamptz WHERE id = $1::bigint`, [
        m.id,
        deps.clock.now().toISOString(),
      ]);
      sent += 1;
    } catch (err) {
      if (err instanceof BotApiError && err.status === 429) {
        // As the delivery worker (retry.ts): a 429 is the platform asking everyone to wait, not
        // a failure of the message. It costs no attempt (four in a row would otherwise mark an
        // alert failed unsent), and the rest of this batch waits with it.
        const rest = claimed.slice(i).map((r) => r.id);
        const until = new Date(deps.clock.now().getTime() + pauseAfter429(err.retryAfter, 1));
        await deps.db.sql(
          `UPDATE health_alert_messages SET attempts = attempts - 1, next_attempt_at = $2::timestamptz, last_error = CASE WHEN id = $3::bigint THEN $4 ELSE last_error END
            WHERE id = ANY($1::bigint[])`,
          [rest, until.toISOString(), m.id, err.message.slice(0, 500)],
        );
        deps.log.warn({ chat_id: m.chat_id, until: until.toISOString() }, 'health alert messages paused by a 429');
        break;
      }
      const retry = err instanceof BotApiError && err.blocked ? ({ status: 'failed' } as const) : deliveryRetry(Number(m.attempts), deps.clock.now());
      const message = err instanceof Error ? err.message : String(err);
      await deps.db.sql(
        `UPDATE health_alert_messages SET status = $2, next_attempt_at = COALESCE($3::timestamptz, next_attempt_at), last_error = $4 WHERE id = $1::bigint`,
        [m.id, retry.status, retry.status === 'pending' ? retry.nextRetryAt.toISOString() : null, message.slice(0, 500)],
      );
      deps.log.warn({ err, chat_id: m.chat_id, health_message: m.id }, 'health alert message not sent');
    }
  }
  return sent;
}
