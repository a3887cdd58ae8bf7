/**
 * Who hears what the hub raises, written once (docs/alerts.md "Who hears an alert",
 * docs/health.md "Who hears it"). The composition root (app.ts, start-workers.ts) and the
 * tests build the registries here; no domain wires another.
 *
 * Alerts: every way an alert comes into being (live match, retro-hunt, hand-added hunt,
 * requeue) goes through `insertAlerts` (alerts/raise.ts), which runs these hooks in the
 * raising transaction and then notifies `ALERT_CHANNEL`:
 *   - in the transaction: the messaging bot queues its deliveries (when a bot is set) and the
 *     webhooks queue theirs, so an alert and its deliveries commit together or not at all;
 *   - after commit, on the notification: the live page's broker (live/broker.ts) and MQTT out
 *     (mqtt/run.ts) load the alert and publish it.
 * Health alerts: the evaluator (health/evaluate.ts) runs its hearers in the transaction that
 * opens or closes them (the admins' bot messages, the webhook targets that asked for
 * `health`), then notifies `HEALTH_CHANNEL` for the live page.
 */
import { createAlertHooks, type AlertHooks } from './alerts/hooks.ts';
import { retroHuntWith } from './alerts/retro-hunt.ts';
import type { DbSession } from './db/session.ts';
import type { HealthHearer } from './health/hearers.ts';
import { botApi } from './messaging/bot-api.ts';
import { queueDeliveriesOnRaise } from './messaging/delivery/enqueue.ts';
import { createSendLimits } from './messaging/delivery/send-limits.ts';
import { queueAdminMessages, sendHealthMessages } from './messaging/health-messages.ts';
import type { Clock } from './platform/clock.ts';
import type { HubConfig } from './platform/config/hub-config.ts';
import type { Log } from './platform/log.ts';
import { queueWebhooksOnRaise } from './webhooks/enqueue.ts';
import { queueHealthWebhooks } from './webhooks/health-events.ts';
import type { RetroHunt } from './watchlists/hunt.ts';

export function alertHearers(config: Pick<HubConfig, 'telegram'>): AlertHooks {
  const hooks = createAlertHooks();
  if (config.telegram) queueDeliveriesOnRaise(hooks, { cooldownMs: config.telegram.cooldownMs });
  queueWebhooksOnRaise(hooks);
  return hooks;
}

/** The retro-hunt watchlists ask for, its historical hits heard like live alerts. */
export function heardRetroHunt(config: Pick<HubConfig, 'telegram'>): RetroHunt {
  return retroHuntWith(alertHearers(config));
}

/** In the evaluator's transaction: the admins' bot messages are queued, then the webhooks'. */
export const HEALTH_HEARERS: readonly HealthHearer[] = [queueAdminMessages, queueHealthWebhooks];

/** After each look: the bot sends the admins' messages its hearer queued (none without a bot). */
export function healthBotSender(deps: { db: DbSession; clock: Clock; log: Log }, config: Pick<HubConfig, 'telegram'>): (() => Promise<unknown>) | undefined {
  if (!config.telegram) return undefined;
  const api = botApi(config.telegram.apiUrl, config.telegram.token);
  const limits = createSendLimits();
  return () => sendHealthMessages({ ...deps, api, limits });
}
