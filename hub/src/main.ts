/**
 * The hub process: configuration from the environment (parsed once, here), database
 * (PGlite by default, Postgres with DATABASE_URL), image store, HTTP server.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { serverOptionsFor } from '@alpr/shared/http/timeouts';
import { createHubApp } from './app.ts';
import { drainable } from './platform/http/drain.ts';
import { createLiveBroker } from './live/broker.ts';
import { attachLiveChannel } from './live/upgrade.ts';
import { systemClock } from './platform/clock.ts';
import { loadHubConfig } from './platform/config/hub-config.ts';
import { openDatabase } from './db/client.ts';
import { giveHeapHeadroom } from './ingest/heap-headroom.ts';
import { openImageStore } from './images/image-store.ts';
import { createLoadMonitor } from './ingest/load-monitor.ts';
import type { HubDeps } from './hub-deps.ts';
import { createLog } from './platform/log.ts';
import { createHubMetrics } from './platform/hub-metrics.ts';
import { startWorkers } from './start-workers.ts';
import { escrowStoredConfigSecrets } from './collectors/escrow-stored-secrets.ts';
import { startMqttOut } from './mqtt/run.ts';
import { httpsOptionsOf, loadTlsMaterial } from './tls/material.ts';

giveHeapHeadroom();
const parsedConfig = loadHubConfig(process.env);
const log = createLog(parsedConfig.logLevel);
// TLS by default (docs/security.md "TLS by default"): a non-loopback hub serves TLS 1.3 only,
// with its given certificate or one generated on first start and kept in the data folder.
// Loaded before anything else so a bad certificate stops the start, not the first request.
const tlsMaterial =
  parsedConfig.transport === 'https'
    ? await loadTlsMaterial({
        ...(parsedConfig.tls ? { files: parsedConfig.tls } : {}),
        dataDir: parsedConfig.dataDir,
        names: [new URL(parsedConfig.publicUrl).hostname.replace(/^\[(.*)\]$/, '$1'), parsedConfig.host, hostname(), 'localhost', '127.0.0.1'],
        now: systemClock.now(),
      })
    : undefined;
const config = tlsMaterial ? { ...parsedConfig, certificateSha256: tlsMaterial.sha256 } : parsedConfig;
if (tlsMaterial) {
  // Printed on stdout as well as logged: the installer compares it with the appliance's setup page.
  log.info(
    { certificate_sha256: tlsMaterial.sha256, source: tlsMaterial.source, file: tlsMaterial.certFile, created: tlsMaterial.created },
    tlsMaterial.created ? 'hub TLS certificate generated' : 'hub TLS certificate',
  );
  process.stdout.write(`hub certificate SHA-256: ${tlsMaterial.sha256}\n`);
} else if (config.transport === 'behind_proxy') {
  log.warn({ trusted_proxies: config.trustedProxies }, 'plain HTTP on a non-loopback host: TLS is terminated by the proxy (HUB_BEHIND_TLS_PROXY=true)');
}
await mkdir(config.imageDir, { recursive: true });
const db = await openDatabase({
  ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }),
  log,
});
// Secrets an older hub kept in clear in collectors' configurations are sealed before anything is
// served (docs/collectors.md "Secrets in the configuration").
const escrowedRows = await escrowStoredConfigSecrets({ db, config });
if (escrowedRows > 0) log.info({ collectors: escrowedRows }, 'sealed configuration secrets an older hub stored in clear');
// The image folder is ready before anything is served (docs/ingest.md, "Image segments"):
// a journal left by a hub before segments is replayed first; registry failures are logged
// and retried in the background.
const images = openImageStore(config.imageDir, {
  db,
  onError: (err) => log.error({ err }, 'image store'),
  onWarning: (message) => log.warn(message),
});
await images.ready();
const metrics = createHubMetrics();
const hubDeps: HubDeps = { db, images, load: createLoadMonitor(), clock: systemClock, log, config, metrics };
const app = createHubApp(hubDeps);
const tls = tlsMaterial ? httpsOptionsOf(tlsMaterial) : undefined;
const http = drainable(app.fetch);
const server = serve(
  {
    fetch: http.fetch,
    hostname: config.host,
    port: config.port,
    ...(tls ? { createServer: createHttpsServer } : {}),
    serverOptions: { ...serverOptionsFor(config.timeouts), ...tls },
  },
  (info) => {
    log.info({ url: `${tls ? 'https' : 'http'}://${info.address}:${info.port}`, database: db.kind }, 'hub listening');
    process.send?.({ ready: true, port: info.port });
  },
);
// The live channel (GET /ws) on the same server: LISTENs for alerts and detections.
const deps = { db, clock: systemClock, log, config };
const live = createLiveBroker(deps, { maxConnectionsPerUser: config.liveMaxConnectionsPerUser });
await live.start(db.listen.bind(db));
metrics.watchLive(live);
const liveChannel = attachLiveChannel(server as Server, deps, live);
// The alert worker (and the bot's deliveries) run here unless they run as their own process
// (`npm run hub -- worker`); partitions, retention and the bot's inbound side always here.
const workers = await startWorkers({ db, images, clock: systemClock, log }, config, 'hub');
// MQTT out (docs/mqtt.md): hears committed alerts and detections on their NOTIFY channels; never in their way.
const mqttOut = config.mqtt
  ? await startMqttOut({ db, listen: db.listen.bind(db), clock: systemClock, log, hubConfig: config, metrics }, config.mqtt)
  : undefined;

let stopping = false;
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'hub stopping');
  setTimeout(() => process.exit(1), 10_000).unref();
  liveChannel.close();
  void live.stop();
  void mqttOut?.stop().catch((err: unknown) => log.warn({ err }, 'mqtt out did not stop cleanly'));
  // Requests in hand finish against an open database, new ones get a 503 that sends the client
  // elsewhere (http/drain.ts); a batch the workers hold commits or rolls back whole. Then the
  // database closes. Unmoved images stay in the journal and are replayed at the next start.
  const drained = http.drain(server as Server, 6_000).then((how) => {
    if (how === 'timed_out') log.warn('requests still open after 6 s were cut');
  });
  const workersStopped = workers.stop().catch((err: unknown) => log.error({ err }, 'alert worker or retention did not stop cleanly'));
  // The upload counts held for a second (ingest/load-record.ts) are written before the database closes.
  const countsWritten = drained.then(() => hubDeps.uploadLoad?.stop());
  void Promise.allSettled([countsWritten, workersStopped]).finally(() => Promise.allSettled([images.close(), db.close()]).finally(() => process.exit(0)));
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
