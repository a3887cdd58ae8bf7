/**
 * Queueing webhook deliveries (docs/webhooks.md "Delivery"). Alert events are queued inside
 * the alert worker's raising transaction (alerts/hooks.ts), like the bot's: the alert and
 * its deliveries commit together, so a crash neither loses nor doubles one (the unique
 * `(target_id, event_key)` makes a re-run a no-op). A test event is queued on its own.
 */
import type { AlertHooks, RaisedAlert } from '../alerts/hooks.ts';
import { WEBHOOK_CHANNEL } from '../db/channels.ts';
import type { DbSession, StatementSession } from '../db/session.ts';
import { collectorSites } from './collector-sites.ts';
import { filterMatches, type WebhookFilter } from './filter.ts';
import { alertBody, testBody, type AlertEventRow } from './payload.ts';
import { newMessageId } from './sign.ts';
import { getTarget, type WebhookContext } from './targets.ts';

export interface Queued {
  target_id: string;
  message_id: string;
  event_type: string;
  event_key: string;
  body: string;
}

export async function insertDeliveries(tx: StatementSession, items: readonly Queued[], now: Date): Promise<number> {
  if (items.length === 0) return 0;
  const rows = await tx.sql(
    `INSERT INTO webhook_deliveries (target_id, message_id, event_type, event_key, body, next_retry_at, created_at)
     SELECT v.target_id, v.message_id, v.event_type, v.event_key, v.body, $2::timestamptz, $2::timestamptz
     FROM json_to_recordset($1::json) AS v (target_id uuid, message_id text, event_type text, event_key text, body text)
     ON CONFLICT (target_id, event_key) DO NOTHING RETURNING id`,
    [JSON.stringify(items), now.toISOString()],
  );
  return rows.length;
}

/**
 * Queues one delivery per enabled target that hears the alert: an alert target whose filter
 * the alert passes, or a target the alert's watchlist names as a recipient (docs/watchlists.md
 * "Recipients"). A recipient target gets every alert of that list whatever its own `events`
 * and filter say: those choose what it hears of the hub's whole stream, the list's naming is a
 * choice of its own. Either way it is one delivery (unique per target and event).
 */
export async function enqueueAlertWebhooks(tx: DbSession, alerts: readonly RaisedAlert[], now: Date): Promise<number> {
  if (alerts.length === 0) return 0;
  const targets = await tx.sql<{ id: string; filter: WebhookFilter; hears_alerts: boolean; lists: string[] }>(
    `SELECT t.id::text AS id, t.filter, 'alert' = ANY (t.events) AS hears_alerts,
            ARRAY(SELECT r.watchlist_id::text FROM watchlist_recipient_webhooks r
                  WHERE r.target_id = t.id AND r.watchlist_id IN (SELECT value::uuid FROM json_array_elements_text($1::json))) AS lists
     FROM webhook_targets t WHERE t.enabled`,
    [JSON.stringify([...new Set(alerts.map((a) => a.watchlistId))])],
  );
  const listening = targets.filter((t) => t.hears_alerts || t.lists.length > 0);
  if (listening.length === 0) return 0;
  const rows = await tx.sql<AlertEventRow>(
    `SELECT a.id::text AS alert_id, a.created_at AS raised_at, w.id::text AS watchlist_id, w.name AS watchlist_name, w.priority,
            d.plate_number AS plate, d.plate_normalized, d.confidence, d.detection_id, d.captured_at, d.collector_id::text AS collector_id, d.camera_id,
            a.historical
     FROM alerts a
     JOIN watchlists w ON w.id = a.watchlist_id
     JOIN detection_keys k ON k.detection_pk = a.detection_id
     JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     WHERE a.id IN (SELECT value::bigint FROM json_array_elements_text($1::json)) ORDER BY a.id`,
    [JSON.stringify(alerts.map((a) => a.id))],
  );
  const sites = await collectorSites(
    tx,
    listening.map((t) => t.filter),
    rows.map((r) => r.collector_id),
  );
  const items: Queued[] = [];
  for (const row of rows) {
    const body = alertBody(row, now);
    const subject = {
      plate: row.plate_normalized,
      collectorId: row.collector_id,
      cameraId: row.camera_id,
      watchlistId: row.watchlist_id,
      siteId: sites.get(row.collector_id),
    };
    for (const target of listening) {
      const named = target.lists.includes(row.watchlist_id);
      if (!named && !(target.hears_alerts && filterMatches(target.filter ?? {}, subject))) continue;
      items.push({ target_id: target.id, message_id: newMessageId(), event_type: 'alert.raised', event_key: `alert:${row.alert_id}`, body });
    }
  }
  return insertDeliveries(tx, items, now);
}

/** Alert targets hear of every alert raised in a transaction the hooks run in. */
export function queueWebhooksOnRaise(hooks: AlertHooks): void {
  hooks.onRaisedInTransaction(async (tx, raised, now) => {
    await enqueueAlertWebhooks(tx, raised, now);
  });
}

/** "Send test event": one `webhook.test` delivery through the same queue. */
export async function enqueueTestEvent(ctx: Pick<WebhookContext, 'db' | 'clock'>, targetId: string): Promise<{ messageId: string }> {
  await getTarget(ctx.db, targetId);
  const now = ctx.clock.now();
  const messageId = newMessageId();
  await ctx.db.transaction(async (tx) => {
    await insertDeliveries(
      tx,
      [{ target_id: targetId, message_id: messageId, event_type: 'webhook.test', event_key: `test:${messageId}`, body: testBody(targetId, now) }],
      now,
    );
    await tx.sql(`SELECT pg_notify($1, $2)`, [WEBHOOK_CHANNEL, targetId]);
  });
  return { messageId };
}
