/**
 * Queueing bot deliveries for new alerts, inside the alert worker's transaction
 * (docs/messaging.md): the alert, its live NOTIFY and its queue items commit
 * together, so a crash can neither lose the items nor queue them twice (alerts are unique
 * per detection and watchlist, and only newly raised ones come here).
 */
import type { AlertHooks, RaisedAlert } from '../../alerts/hooks.ts';
import type { DbSession } from '../../db/session.ts';
import type { WatchlistPriority } from '../../db/schema/watchlists.ts';
import { userSeesCollectorSql } from '../../sites/scope.ts';
import { effectivePreference, type PreferenceRow } from '../effective-preference.ts';
import { verdictFor, type Candidate } from './eligibility.ts';
import { priorityRank, repeatVerdict, windowAfterSend, type CooldownWindow, type Sighting } from './fold.ts';

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
  collector_id: string;
  captured_at: Date;
  priority: WatchlistPriority;
  muted_until: Date | null;
  /** The chat is one of the list's recipients (it may be a subscriber's chat too). */
  recipient: boolean;
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
  /** Sightings folded into a message already sent or queued (per chat; counted there). */
  folded: number;
}

type Item = { alert_id: string; user_id: string; chat_id: string; status: 'pending' | 'suppressed'; reason: string | null };
/** One chat's eligible alerts of one detection: they are sent or folded together. */
type Group = { chatId: string; plate: string; sighting: Sighting; capturedAt: Date; items: Item[] };
/** A folded sighting, counted on the queue items of the detection it was folded into. */
type Fold = { chat_id: string; detection_id: string; at: string };

export async function enqueueTelegram(tx: DbSession, alerts: readonly RaisedAlert[], now: Date, policy: DeliveryPolicy): Promise<EnqueueCounts> {
  if (alerts.length === 0) return { pending: 0, suppressed: 0, folded: 0 };
  const rows = await tx.sql<Row>(
    `SELECT v.id AS alert_id, l.user_id, l.chat_id, v.plate, v.detection_pk AS detection_id, k.collector_id, k.captured_at, w.priority, l.muted_until, l.recipient,
            v.watchlist_id, pw.enabled AS w_enabled, pw.quiet_hours_start::text AS w_start, pw.quiet_hours_end::text AS w_end, pw.timezone AS w_zone,
            pd.enabled AS d_enabled, pd.quiet_hours_start::text AS d_start, pd.quiet_hours_end::text AS d_end, pd.timezone AS d_zone
     FROM json_to_recordset($1::json) AS v (id bigint, detection_pk bigint, watchlist_id uuid, plate text)
     JOIN detection_keys k ON k.detection_pk = v.detection_pk
     JOIN watchlists w ON w.id = v.watchlist_id
     -- The chats of the list's subscribers and the list's own recipient chats (docs/watchlists.md
     -- "Recipients"), one row per chat: a chat that is both gets one item, as a recipient.
     JOIN LATERAL (
       SELECT c.user_id, c.chat_id, c.muted_until, bool_or(c.recipient) AS recipient
       FROM (SELECT l.user_id, l.chat_id, l.muted_until, false AS recipient
             FROM subscriptions s JOIN telegram_links l ON l.user_id = s.user_id AND l.is_active WHERE s.watchlist_id = v.watchlist_id
             UNION ALL
             SELECT l.user_id, l.chat_id, l.muted_until, true
             FROM watchlist_recipient_chats r JOIN telegram_links l ON l.chat_id = r.chat_id AND l.is_active WHERE r.watchlist_id = v.watchlist_id) c
       GROUP BY c.user_id, c.chat_id, c.muted_until
     ) l ON true
     JOIN users u ON u.id = l.user_id AND u.is_active
       -- Only to users whose sites hold the read (docs/sites.md): the bot tells nobody more than the dashboard would.
       -- A recipient chat is judged by the account it is linked to, like that account's own chats.
       AND ${userSeesCollectorSql('u', 'k.collector_id')}
     -- The watchlist's own telegram preference and the user's default, merged below as
     -- the live page merges them (effective-preference.ts).
     LEFT JOIN notification_preferences pw ON pw.user_id = l.user_id AND pw.channel = 'telegram' AND pw.watchlist_id = v.watchlist_id
     LEFT JOIN notification_preferences pd ON pd.user_id = l.user_id AND pd.channel = 'telegram' AND pd.watchlist_id IS NULL
     ORDER BY l.chat_id, v.plate, v.detection_pk, v.id`,
    [JSON.stringify(alerts.map((a) => ({ id: a.id, detection_pk: a.detectionPk, watchlist_id: a.watchlistId, plate: a.plate })))],
  );
  const items: Item[] = [];
  // Eligible alerts grouped by chat, plate and detection, in the ORDER BY's order.
  const groups = new Map<string, Group>();
  for (const r of rows) {
    // A recipient chat was named on the list on purpose: its owner's preferences (which are
    // about the lists the owner subscribed to) neither switch it off nor quiet it; /mute does.
    const preference = r.recipient
      ? { enabled: true, quiet: { start: null, end: null, timeZone: 'UTC' } }
      : effectivePreference(preferenceRows(r), r.watchlist_id, 'telegram');
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
    const item: Item = { alert_id: candidate.alertId, user_id: candidate.userId, chat_id: candidate.chatId, status: 'pending', reason: null };
    items.push(item);
    if (!verdict.send) {
      item.status = 'suppressed';
      item.reason = verdict.reason;
      continue;
    }
    if (policy.cooldownMs === 0) continue;
    const key = `${candidate.chatId}/${candidate.plate}/${candidate.detectionId}`;
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        chatId: candidate.chatId,
        plate: candidate.plate,
        sighting: { detectionId: candidate.detectionId, collectorId: r.collector_id, priority: r.priority },
        capturedAt: new Date(r.captured_at),
        items: [item],
      });
    } else {
      group.items.push(item);
      if (priorityRank(r.priority) > priorityRank(group.sighting.priority)) group.sighting.priority = r.priority;
    }
  }
  const folds = await applyCooldown(tx, [...groups.values()], now, policy.cooldownMs);
  if (items.length === 0) return { pending: 0, suppressed: 0, folded: 0 };
  await tx.sql(
    `INSERT INTO notification_queue (alert_id, user_id, channel, chat_id, status, last_error, created_at, next_retry_at, sent_at)
     SELECT v.alert_id, v.user_id, 'telegram', v.chat_id, v.status, v.reason, $2::timestamptz, $2::timestamptz, NULL
     FROM json_to_recordset($1::json) AS v (alert_id bigint, user_id uuid, chat_id bigint, status text, reason text)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(items), now.toISOString()],
  );
  if (folds.length > 0) await countFolds(tx, folds);
  return {
    pending: items.filter((i) => i.status === 'pending').length,
    suppressed: items.filter((i) => i.status === 'suppressed').length,
    folded: folds.length,
  };
}

/**
 * Decides each group against its (chat, plate) cooldown (fold.ts) and writes the windows
 * back; folded groups' items turn `suppressed` / `cooldown`. The cooldown rows are locked in
 * a fixed order (the ORDER BY above) so two alert workers never deadlock on them; a second
 * worker's transaction waits for the first and then sees the window it opened.
 */
async function applyCooldown(tx: DbSession, groups: readonly Group[], now: Date, cooldownMs: number): Promise<Fold[]> {
  const folds: Fold[] = [];
  let index = 0;
  while (index < groups.length) {
    const first = groups[index] as Group;
    const opened = await lockWindow(tx, first.chatId, first.plate, now);
    let window = opened;
    for (; index < groups.length; index++) {
      const group = groups[index] as Group;
      if (group.chatId !== first.chatId || group.plate !== first.plate) break;
      const verdict = repeatVerdict(window, group.sighting, now);
      if (verdict.send) {
        window = windowAfterSend(window, group.sighting, now, cooldownMs);
        continue;
      }
      for (const item of group.items) Object.assign(item, { status: 'suppressed', reason: 'cooldown' });
      folds.push({ chat_id: group.chatId, detection_id: verdict.foldInto, at: group.capturedAt.toISOString() });
    }
    if (window && window !== opened) await writeWindow(tx, first.chatId, first.plate, window);
  }
  return folds;
}

/**
 * Locks the (chat, plate) cooldown row, creating an expired one when there is none, so a
 * concurrent transaction for the same chat and plate waits here. `reaching`: whether the
 * message of the window's sighting is still on its way or was sent (fold.ts).
 */
async function lockWindow(tx: DbSession, chatId: string, plate: string, now: Date): Promise<CooldownWindow | null> {
  const created = await tx.sql(
    `INSERT INTO telegram_plate_cooldowns (chat_id, plate, detection_id, until) VALUES ($1::bigint, $2, 0, $3::timestamptz)
     ON CONFLICT (chat_id, plate) DO NOTHING RETURNING chat_id`,
    [chatId, plate, now.toISOString()],
  );
  if (created.length > 0) return null;
  const [row] = await tx.sql<{ detection_id: string; collector_id: string | null; priority: WatchlistPriority | null; until: Date; reaching: boolean }>(
    `SELECT c.detection_id, c.collector_id, c.priority, c.until,
            EXISTS (SELECT 1 FROM notification_queue q JOIN alerts a ON a.id = q.alert_id
                    WHERE a.detection_id = c.detection_id AND q.chat_id = c.chat_id AND q.channel = 'telegram'
                      AND q.status IN ('pending', 'processing', 'sent')) AS reaching
     FROM telegram_plate_cooldowns c WHERE c.chat_id = $1::bigint AND c.plate = $2 FOR UPDATE OF c`,
    [chatId, plate],
  );
  if (!row) return null; // expired and deleted by retention in between: no window
  return {
    detectionId: String(row.detection_id),
    collectorId: row.collector_id,
    priority: row.priority,
    until: new Date(row.until),
    reaching: row.reaching,
  };
}

async function writeWindow(tx: DbSession, chatId: string, plate: string, w: CooldownWindow): Promise<void> {
  await tx.sql(
    `INSERT INTO telegram_plate_cooldowns (chat_id, plate, detection_id, until, collector_id, priority)
     VALUES ($1::bigint, $2, $3::bigint, $4::timestamptz, $5::uuid, $6)
     ON CONFLICT (chat_id, plate) DO UPDATE SET detection_id = EXCLUDED.detection_id, until = EXCLUDED.until,
       collector_id = EXCLUDED.collector_id, priority = EXCLUDED.priority`,
    [chatId, plate, w.detectionId, w.until.toISOString(), w.collectorId, w.priority],
  );
}

/**
 * Counts folded sightings on the queue items of the detection each was folded into (every
 * alert of it that went to that chat; one left out for quiet hours was not told anything),
 * after the items of this batch are in: the first message may be in the same batch.
 */
async function countFolds(tx: DbSession, folds: readonly Fold[]): Promise<void> {
  await tx.sql(
    `UPDATE notification_queue q SET folded_repeats = q.folded_repeats + f.n, last_folded_at = greatest(q.last_folded_at, f.at)
     FROM (SELECT chat_id, detection_id, count(*)::int AS n, max(at) AS at
           FROM json_to_recordset($1::json) AS v (chat_id bigint, detection_id bigint, at timestamptz) GROUP BY chat_id, detection_id) f,
          alerts a
     WHERE a.detection_id = f.detection_id AND q.alert_id = a.id AND q.chat_id = f.chat_id AND q.channel = 'telegram'
       AND q.status IN ('pending', 'processing', 'sent')`,
    [JSON.stringify(folds)],
  );
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
