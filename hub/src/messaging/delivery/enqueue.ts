/**
 * Queueing bot deliveries for new alerts, inside the alert worker's transaction
 * (docs/messaging.md): the alert, its live NOTIFY and its queue items commit
 * together, so a crash can neither lose the items nor queue them twice (alerts are unique
 * per detection and watchlist, and only newly raised ones come here).
 */
import type { AlertHooks, RaisedAlert } from '../../alerts/hooks.ts';
import type { DbSession } from '../../db/session.ts';
import { effectivePreference, type PreferenceRow } from '../effective-preference.ts';
import { verdictFor, type Candidate } from './eligibility.ts';

export interface DeliveryPolicy {
  /** Per-plate cooldown per chat (HUB_TELEGRAM_COOLDOWN_SECONDS). */
  cooldownMs: number;
}

type Pref = { enabled: boolean | null; start: string | null; end: string | null; zone: string | null };
type Row = {
  alert_id: string;
  user_id: string;
  chat_id: string;
  plate: string;
  detection_id: string;
  muted_until: Date | null;
  watchlist_id: string;
  w_enabled: boolean | null;
  w_start: string | null;
  w_end: string | null;
  w_zone: string | null;
  d_enabled: boolean | null;
  d_start: string | null;
  d_end: string | null;
  d_zone: string | null;
};

/** The row's two preference columns as the rows effectivePreference reads (absent ones left out). */
function preferenceRows(r: Row): PreferenceRow[] {
  const rows: PreferenceRow[] = [];
  const add = (watchlistId: string | null, p: Pref): void => {
    if (p.enabled !== null)
      rows.push({
        watchlist_id: watchlistId,
        channel: 'telegram',
        enabled: p.enabled,
        quiet_hours_start: p.start,
        quiet_hours_end: p.end,
        timezone: p.zone ?? 'UTC',
      });
  };
  add(r.watchlist_id, { enabled: r.w_enabled, start: r.w_start, end: r.w_end, zone: r.w_zone });
  add(null, { enabled: r.d_enabled, start: r.d_start, end: r.d_end, zone: r.d_zone });
  return rows;
}

export interface EnqueueCounts {
  pending: number;
  suppressed: number;
}

export async function enqueueTelegram(tx: DbSession, alerts: readonly RaisedAlert[], now: Date, policy: DeliveryPolicy): Promise<EnqueueCounts> {
  if (alerts.length === 0) return { pending: 0, suppressed: 0 };
  const rows = await tx.sql<Row>(
    `SELECT v.id AS alert_id, s.user_id, l.chat_id, v.plate, v.detection_pk AS detection_id, l.muted_until,
            v.watchlist_id, pw.enabled AS w_enabled, pw.quiet_hours_start::text AS w_start, pw.quiet_hours_end::text AS w_end, pw.timezone AS w_zone,
            pd.enabled AS d_enabled, pd.quiet_hours_start::text AS d_start, pd.quiet_hours_end::text AS d_end, pd.timezone AS d_zone
     FROM json_to_recordset($1::json) AS v (id bigint, detection_pk bigint, watchlist_id uuid, plate text)
     JOIN subscriptions s ON s.watchlist_id = v.watchlist_id
     JOIN users u ON u.id = s.user_id AND u.is_active
     JOIN telegram_links l ON l.user_id = s.user_id AND l.is_active
     -- The watchlist's own telegram preference and the user's default, merged below as
     -- the live page merges them (effective-preference.ts).
     LEFT JOIN notification_preferences pw ON pw.user_id = s.user_id AND pw.channel = 'telegram' AND pw.watchlist_id = v.watchlist_id
     LEFT JOIN notification_preferences pd ON pd.user_id = s.user_id AND pd.channel = 'telegram' AND pd.watchlist_id IS NULL
     ORDER BY l.chat_id, v.plate, v.detection_pk, v.id`,
    [JSON.stringify(alerts.map((a) => ({ id: a.id, detection_pk: a.detectionPk, watchlist_id: a.watchlistId, plate: a.plate })))],
  );
  const items: { alert_id: string; user_id: string; chat_id: string; status: 'pending' | 'suppressed'; reason: string | null }[] = [];
  // The cooldown is one row per (chat, plate), taken in a fixed order (the ORDER BY above)
  // so two alert workers never deadlock on it; a second worker's transaction waits for the
  // first and then finds the cooldown running. Alerts of the detection that took it (one
  // plate on two watchlists) go out together.
  const granted = new Map<string, string | null>();
  for (const r of rows) {
    const preference = effectivePreference(preferenceRows(r), r.watchlist_id, 'telegram');
    const candidate: Candidate = {
      alertId: String(r.alert_id),
      userId: r.user_id,
      chatId: String(r.chat_id),
      plate: r.plate,
      detectionId: String(r.detection_id),
      mutedUntil: r.muted_until ? new Date(r.muted_until) : null,
      enabled: preference.enabled,
      quiet: preference.quiet,
    };
    const verdict = verdictFor(candidate, now);
    if ('skip' in verdict) continue;
    const base = { alert_id: candidate.alertId, user_id: candidate.userId, chat_id: candidate.chatId };
    if (!verdict.send) {
      items.push({ ...base, status: 'suppressed', reason: verdict.reason });
      continue;
    }
    if (policy.cooldownMs === 0) {
      items.push({ ...base, status: 'pending', reason: null });
      continue;
    }
    const key = `${candidate.chatId}/${candidate.plate}`;
    if (!granted.has(key)) granted.set(key, (await takeCooldown(tx, candidate, now, policy.cooldownMs)) ? candidate.detectionId : null);
    const holder = granted.get(key);
    items.push(holder === candidate.detectionId ? { ...base, status: 'pending', reason: null } : { ...base, status: 'suppressed', reason: 'cooldown' });
  }
  if (items.length === 0) return { pending: 0, suppressed: 0 };
  await tx.sql(
    `INSERT INTO notification_queue (alert_id, user_id, channel, chat_id, status, last_error, created_at, next_retry_at, sent_at)
     SELECT v.alert_id, v.user_id, 'telegram', v.chat_id, v.status, v.reason, $2::timestamptz, $2::timestamptz, NULL
     FROM json_to_recordset($1::json) AS v (alert_id bigint, user_id uuid, chat_id bigint, status text, reason text)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(items), now.toISOString()],
  );
  return { pending: items.filter((i) => i.status === 'pending').length, suppressed: items.filter((i) => i.status === 'suppressed').length };
}

/** Takes the (chat, plate) cooldown unless it is running for another detection. */
async function takeCooldown(tx: DbSession, c: Candidate, now: Date, cooldownMs: number): Promise<boolean> {
  const rows = await tx.sql<{ detection_id: string }>(
    `INSERT INTO telegram_plate_cooldowns (chat_id, plate, detection_id, until) VALUES ($1::bigint, $2, $3::bigint, $4::timestamptz)
     ON CONFLICT (chat_id, plate) DO UPDATE SET detection_id = EXCLUDED.detection_id, until = EXCLUDED.until
       WHERE telegram_plate_cooldowns.until <= $5::timestamptz OR telegram_plate_cooldowns.detection_id = EXCLUDED.detection_id
     RETURNING detection_id`,
    [c.chatId, c.plate, c.detectionId, new Date(now.getTime() + cooldownMs).toISOString(), now.toISOString()],
  );
  return rows.length > 0;
}

/**
 * Queue bot deliveries for every alert the alert worker raises, in its transaction (the
 * hook of alerts/hooks.ts). Registered at start-up only when a bot is configured, so
 * nothing piles up for a delivery worker that does not run.
 */
export function queueDeliveriesOnRaise(hooks: AlertHooks, policy: DeliveryPolicy): void {
  hooks.onRaisedInTransaction(async (tx, raised, now) => {
    await enqueueTelegram(tx, raised, now, policy);
  });
}
