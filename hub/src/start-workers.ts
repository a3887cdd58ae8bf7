/**
 * The background work of a hub process, started one way by the hub (main.ts) and by
 * `npm run hub -- worker` (cli/worker-command.ts):
 *   - both, always: the search key builder (docs/search.md "Keys built after commit").
 *   - both: the alert worker, the bot's delivery worker (docs/alerts.md "Running it") and
 *     the webhook delivery worker (docs/webhooks.md),
 *     in the hub only while HUB_ALERT_WORKER is on. Deliveries go where alerts go: the bot
 *     registers its queueing with the alerts (alerts/hooks.ts) before the first claim.
 *   - the hub only: the health evaluator (docs/health.md), the daily partition check, on PGlite
 *     the vacuum of the tables it churns (db/embedded-vacuum.ts), retention (it compacts image segments, which
 *     the hub alone writes) and the bot's inbound side (long polling: the platform answers a
 *     second poller of one bot with a conflict; or registering the webhook).
 */
import { alertHearers, HEALTH_HEARERS, healthBotSender, heardRetroHunt } from './hearers.ts';
import type { RunningAlerts } from './alerts/run.ts';
import { startAlerts } from './alerts/run.ts';
import type { Clock } from './platform/clock.ts';
import type { HubConfig } from './platform/config/hub-config.ts';
import type { Database } from './db/client.ts';
import { ensureUpcomingPartitions } from './db/partitions.ts';
import { EMBEDDED_VACUUM_MS, vacuumEmbedded } from './db/embedded-vacuum.ts';
import type { ImageStore } from './images/image-store.ts';
import type { Log } from './platform/log.ts';
import { botApi } from './messaging/bot-api.ts';
import { startDelivery } from './messaging/delivery/run.ts';
import type { DeliveryWorker } from './messaging/delivery/worker.ts';
import { startPolling } from './messaging/polling.ts';
import { TELEGRAM_WEBHOOK_PATH } from './platform/http/paths.ts';
import { startKeyBuilder } from './search/key-builder-worker.ts';
import { startBlockSealer } from './search/block-sealer.ts';
import { startRetentionSchedule } from './retention/schedule.ts';
import { startHealthSchedule } from './health/schedule.ts';
import { startFeedSchedule } from './watchlists/feeds/schedule.ts';
import { startDetectionEvents } from './webhooks/detection-worker.ts';
import { startWebhooks } from './webhooks/run.ts';
import type { WebhookWorker } from './webhooks/worker.ts';

export interface WorkerDeps {
  db: Database;
  images: ImageStore;
  clock: Clock;
  log: Log;
}

export interface RunningWorkers {
  /** Absent when this process does not run the alert worker. */
  alerts: RunningAlerts | undefined;
  delivery: DeliveryWorker | undefined;
  /** Signed outgoing webhooks (docs/webhooks.md): runs beside the alert worker. */
  webhooks: WebhookWorker | undefined;
  /** Finish the work in hand, then stop; the database and image store stay open. */
  stop(): Promise<void>;
}

/** Checked daily so a long-running hub never runs out of partitions for the months ahead. */
const PARTITION_CHECK_MS = 24 * 3600_000;

export async function startWorkers(deps: WorkerDeps, config: HubConfig, role: 'hub' | 'worker'): Promise<RunningWorkers> {
  const { db, images, clock, log } = deps;
  let alerts: RunningAlerts | undefined;
  let delivery: DeliveryWorker | undefined;
  let webhooks: WebhookWorker | undefined;
  const stops: (() => Promise<void>)[] = [];
  if (role === 'worker' || config.alertWorker) {
    alerts = await startAlerts({ db, clock, log }, { lockTimeoutMs: config.alertLockTimeoutMs, hooks: alertHearers(config) });
    delivery = await startDelivery({ db, clock, log, image: (sha) => images.get(sha) }, config);
    webhooks = await startWebhooks({ db, clock, log, config });
    const detectionEvents = await startDetectionEvents({ db, clock, log });
    stops.push(() => detectionEvents.stop());
  }
  for (const running of [alerts, delivery, webhooks]) if (running) stops.push(() => running.stop());

  // The search key builder (docs/search.md "Keys built after commit"): in every hub process,
  // whatever its role, so keys follow reads wherever the operator runs workers; two processes
  // share one cursor and its row lock leaves the work to one.
  const keyBuilder = await startKeyBuilder({ db, clock, log });
  stops.push(() => keyBuilder.stop());
  // Beside it, the sealer that moves its postings into blocks (docs/search.md "Postings sealed in blocks").
  const sealer = await startBlockSealer({ db, clock, log });
  stops.push(() => sealer.stop());

  if (role === 'hub') {
    const partitionTimer = setInterval(() => {
      ensureUpcomingPartitions(db, clock.now()).catch((err: unknown) => log.error({ err }, 'partition check failed'));
    }, PARTITION_CHECK_MS);
    partitionTimer.unref();
    stops.push(async () => clearInterval(partitionTimer));

    // PGlite runs without autovacuum: the hub vacuums the tables it churns itself
    // (db/embedded-vacuum.ts), one table at a time so ingest waits for one at most.
    if (db.kind === 'pglite') {
      let pass: Promise<unknown> | undefined;
      const vacuumTimer = setInterval(() => {
        if (pass) return; // the last pass is still running: no second one beside it
        const started = performance.now();
        pass = vacuumEmbedded(db)
          .then((tables) => log.debug({ tables, ms: Math.round(performance.now() - started) }, 'embedded vacuum'))
          .catch((err: unknown) => log.error({ err }, 'embedded vacuum failed'))
          .finally(() => {
            pass = undefined;
          });
      }, EMBEDDED_VACUUM_MS);
      vacuumTimer.unref();
      stops.push(async () => {
        clearInterval(vacuumTimer);
        await pass;
      });
    }

    // Retention (docs/retention.md): daily by default; a second hub process skips a run in progress.
    if (config.retentionSchedule) {
      const retention = startRetentionSchedule({ db, images, clock, log }, { schedule: config.retentionSchedule, horizons: config.retention });
      log.info({ schedule: config.retentionSchedule, next: retention.nextRun()?.toISOString() }, 'retention scheduled');
      stops.push(() => retention.stop());
    }

    // Health alerts (docs/health.md): a look every minute at cameras, collectors and load;
    // openings and closings go to the live feed and the admins' bot chats.
    // Watchlist feeds (docs/watchlists.md "Feeds"): due feeds are read once a minute; the
    // historical hits of a retro-hunt reach the bot and webhooks like live alerts.
    const feeds = startFeedSchedule({ db, clock, log }, { hunt: heardRetroHunt(config) });
    stops.push(() => feeds.stop());

    const health = startHealthSchedule({ db, clock, log, config, hearers: HEALTH_HEARERS }, healthBotSender({ db, clock, log }, config));
    stops.push(() => health.stop());

    // The messaging bot's inbound side (docs/messaging.md): long polling, or the webhook route
    // registered with the platform.
    const telegram = config.telegram;
    if (telegram) {
      const bot = botApi(telegram.apiUrl, telegram.token);
      if (telegram.mode === 'polling') {
        const polling = startPolling({ db, clock, log }, bot);
        stops.push(() => polling.stop());
      } else {
        const url = `${config.publicUrl}${TELEGRAM_WEBHOOK_PATH}`;
        bot
          .call('setWebhook', { url, secret_token: telegram.webhookSecret, allowed_updates: ['message'] })
          .then(() => log.info({ url }, 'telegram webhook registered'))
          .catch((err: unknown) => log.error({ err }, 'telegram setWebhook failed'));
      }
    }
  }

  return {
    alerts,
    delivery,
    webhooks,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
