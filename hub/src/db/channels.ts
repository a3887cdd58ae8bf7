/**
 * The hub's NOTIFY channels, each named once: the transaction that changes the tables sends
 * the NOTIFY (delivered on commit, never for a rolled-back change), and every process that
 * LISTENs treats it as a wake-up only: the tables stay the truth, and polling covers a lost
 * notification (a dropped LISTEN connection).
 */

/**
 * A stored batch of detections (ingest/batch-sql.ts). Payload: `{ collector_id, count, ids? }`,
 * `ids` (detection pks) left out when the payload would pass PostgreSQL's 8000-byte cap.
 * Listeners: the alert worker (alerts/worker.ts) and the live feed (live/broker.ts).
 */
export const DETECTIONS_CHANNEL = 'detections';

/**
 * Alerts raised (alerts/raise.ts). Payload: `{ ids }`, the new alert ids, at most 500 a
 * NOTIFY. Listeners: the live feed and the messaging bot's delivery worker.
 */
export const ALERT_CHANNEL = 'alerts';

/**
 * A watchlist or its entries changed (watchlists/notify.ts). Payload: the watchlist id.
 * Listener: every process's watchlist cache (watchlists/cache.ts), which drops its index.
 */
export const WATCHLIST_CHANNEL = 'watchlists';

/**
 * An operator confirmed an alert or marked it misread (alerts/verify.ts). Payload: `{ ids }`,
 * the alert ids. Listener: the live feed, which sends `alert_verification` (docs/live.md).
 */
export const ALERT_VERIFIED_CHANNEL = 'alert_verifications';

/**
 * Webhook deliveries queued outside an alert's transaction (a "send test event"; webhooks/
 * enqueue.ts). Payload: the target id. Listener: the webhook delivery worker, which also
 * wakes on `alerts`, since alert events are queued in the raising transaction.
 */
export const WEBHOOK_CHANNEL = 'webhooks';
