/**
 * The hub process: configuration from the environment (parsed once, here), database
 * (PGlite by default, Postgres with DATABASE_URL), image store, HTTP server.
 */
import { serve } from '@hono/node-server';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdir } from 'node:fs/promises';
import { serverOptionsFor } from '@alpr/shared/http/timeouts';
import { createHubApp } from './app.ts';
import { startAlerts } from './alerts/run.ts';
import { createLiveBroker } from './live/broker.ts';
import { attachLiveChannel } from './live/upgrade.ts';
import { systemClock } from './clock.ts';
import { loadHubConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { ensureUpcomingPartitions } from './db/partitions.ts';
import { giveHeapHeadroom } from './ingest/heap-headroom.ts';
import { openImageStore } from './images/image-store.ts';
import { createLoadMonitor } from './ingest/load-monitor.ts';
import { createLog } from './log.ts';
import { startRetentionSchedule } from './retention/schedule.ts';
import { botApi } from './messaging/bot-api.ts';
import { startPolling } from './messaging/polling.ts';
import { startDelivery } from './messaging/delivery/run.ts';
import { TELEGRAM_WEBHOOK_PATH } from './messaging/routes.ts';

giveHeapHeadroom();
const config = loadHubConfig(process.env);
const log = createLog(config.logLevel);
await mkdir(config.imageDir, { recursive: true });
const db = await openDatabase({
  ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }),
  log,
});
// The image folder is ready before anything is served (docs/ingest.md, "Image segments"):
// a journal left by a hub before segments is replayed first; registry failures are logged
// and retried in the background.
const images = openImageStore(config.imageDir, {
  db,
  onError: (err) => log.error({ err }, 'image store'),
  onWarning: (message) => log.warn(message),
});
await images.ready();
const app = createHubApp({
  db,
  images,
  load: createLoadMonitor(),
  clock: systemClock,
  log,
  config,
});
// HTTPS itself when given a certificate (docs/security.md "TLS deployment"): TLS 1.3 only,
// the spec's "keys travel only over TLS 1.3".
const tls = config.tls ? { key: readFileSync(config.tls.keyFile), cert: readFileSync(config.tls.certFile), minVersion: 'TLSv1.3' as const } : undefined;
const server = serve({
  fetch: app.fetch, hostname: config.host, port: config.port,
  ...(tls ? { createServer: createHttpsServer } : {}),
  serverOptions: { ...serverOptionsFor(config.timeouts), ...tls },
}, (info) => {
  log.info({ url: `${tls ? 'https' : 'http'}://${info.address}:${info.port}`, database: db.kind }, 'hub listening');
  process.send?.({ ready: true, port: info.port });
});
// The live channel (GET /ws) on the same server: LISTENs for alerts and detections.
const deps = { db, clock: systemClock, log, config };
const live = createLiveBroker(deps, { maxConnectionsPerUser: config.liveMaxConnectionsPerUser });
await live.start(db.listen.bind(db));
const liveChannel = attachLiveChannel(server as Server, deps, live);
// The alert worker runs here unless it runs as its own process (`npm run hub -- worker`).
const alerts = config.alertWorker
  ? await startAlerts({ db, clock: systemClock, log }, { lockTimeoutMs: config.alertLockTimeoutMs, ...(config.telegram ? { telegram: { cooldownMs: config.telegram.cooldownMs } } : {}) })
  : undefined;
// The bot's delivery worker goes where the alert worker goes (docs/messaging.md "Delivery").
const delivery = config.alertWorker ? await startDelivery({ db, clock: systemClock, log, image: (sha) => images.get(sha) }, config) : undefined;
// Partitions for the months ahead: checked daily so a long-running hub never runs out.
const partitionTimer = setInterval(() => {
  ensureUpcomingPartitions(db, systemClock.now()).catch((err: unknown) => log.error({ err }, 'partition check failed'));
}, 24 * 3600_000);
partitionTimer.unref();
// Retention (docs/retention.md): daily by default; a second hub process skips a run in progress.
const retention = config.retentionSchedule
  ? startRetentionSchedule({ db, images, clock: systemClock, log }, { schedule: config.retentionSchedule, horizons: config.retention })
  : undefined;
if (retention) log.info({ schedule: config.retentionSchedule, next: retention.nextRun()?.toISOString() }, 'retention scheduled');

// The messaging bot's inbound side (docs/messaging.md): long polling, or the webhook route
// registered with the platform.
const bot = config.telegram ? botApi(config.telegram.apiUrl, config.telegram.token) : undefined;
const polling = bot && config.telegram?.mode === 'polling' ? startPolling({ db, clock: systemClock, log }, bot) : undefined;
if (bot && config.telegram?.mode === 'webhook') {
  bot
    .call('setWebhook', { url: `${config.publicUrl}${TELEGRAM_WEBHOOK_PATH}`, secret_token: config.telegram.webhookSecret, allowed_updates: ['message'] })
    .then(() => log.info({ url: `${config.publicUrl}${TELEGRAM_WEBHOOK_PATH}` }, 'telegram webhook registered'))
    .catch((err: unknown) => log.error({ err }, 'telegram setWebhook failed'));
}

let stopping = false;
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'hub stopping');
  setTimeout(() => process.exit(1), 10_000).unref();
  liveChannel.close();
  server.close();
  void live.stop();
  // A batch in hand commits or rolls back whole; then the database closes. Unmoved images
  // stay in the journal and are replayed at the next start.
  void Promise.all([alerts?.stop(), delivery?.stop(), retention?.stop(), polling?.stop()])
    .catch((err: unknown) => log.error({ err }, 'alert worker or retention did not stop cleanly'))
    .finally(() => Promise.allSettled([images.close(), db.close()]).finally(() => process.exit(0)));
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
