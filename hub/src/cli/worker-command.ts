/**
 * `npm run hub -- worker`: the alert worker (and the messaging bot's delivery worker, when
 * a bot is configured) as its own process (docs/alerts.md "Running
 * it"). Runs until SIGTERM or SIGINT, finishing the batch in hand. Needs PostgreSQL when
 * a hub runs beside it (a PGlite folder opens in one process only; then keep
 * HUB_ALERT_WORKER=on and let the hub run it).
 */
import { systemClock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { openImageStore } from '../images/image-store.ts';
import { startWorkers } from '../start-workers.ts';
import { cliLog, type CliIo } from './cli-io.ts';

/**
 * Environment, usage message and log come through `io`; the process's life stays the real
 * process's (the SIGTERM/SIGINT it waits for, the `ready` message to a parent, the 10 s
 * forced exit): a worker is a long-running process, not a command a test runs in-process.
 */
export async function runWorkerCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length > 0) {
    io.stderr(`usage: npm run hub -- worker   (no arguments; configured by DATABASE_URL and HUB_* like the hub)\n`);
    return 2;
  }
  const config = loadHubConfig(io.env);
  // The worker logs what it does at the configured level (info by default): its log is its only output.
  const log = cliLog(io, config.logLevel, false);
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 3 });
  // The bot's deliveries too, when a bot is configured. Crops are read through the image
  // store: this process only reads (the hub alone appends), and an alert's detection was
  // committed with its images' locations, so a crop is readable at once.
  const images = openImageStore(config.imageDir, { db, onError: (err) => log.error({ err }, 'image store') });
  const workers = await startWorkers({ db, images, clock: systemClock, log }, config, 'worker');
  process.send?.({ ready: true });
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log.info({ signal, ...workers.alerts?.worker.stats() }, 'alert worker stopping');
  setTimeout(() => process.exit(1), 10_000).unref();
  await workers.stop();
  await images.close();
  await db.close();
  return 0;
}
