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
import { createLiveBroker } from './live/broker.ts';
import { attachLiveChannel } from './live/upgrade.ts';
import { systemClock } from './clock.ts';
import { loadHubConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { giveHeapHeadroom } from './ingest/heap-headroom.ts';
import { openImageStore } from './images/image-store.ts';
import { createLoadMonitor } from './ingest/load-monitor.ts';
import { createLog } from './log.ts';
import { startWorkers } from './workers/start.ts';

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
// because keys travel only over TLS 1.3.
const tls = config.tls ? { key: readFileSync(config.tls.keyFile), cert: readFileSync(config.tls.certFile), minVersion: 'TLSv1.3' as const } : undefined;
const server = serve(
  {
    fetch: app.fetch,
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
const liveChannel = attachLiveChannel(server as Server, deps, live);
// The alert worker (and the bot's deliveries) run here unless they run as their own process
// (`npm run hub -- worker`); partitions, retention and the bot's inbound side always here.
const workers = await startWorkers({ db, images, clock: systemClock, log }, config, 'hub');

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
  void workers
    .stop()
    .catch((err: unknown) => log.error({ err }, 'alert worker or retention did not stop cleanly'))
    .finally(() => Promise.allSettled([images.close(), db.close()]).finally(() => process.exit(0)));
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
