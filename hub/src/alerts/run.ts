import type { Database } from '../db/client.ts';
import type { Clock } from '../platform/clock.ts';
import type { Log } from '../platform/log.ts';
import { createWatchlistCache, type WatchlistCache } from '../watchlists/cache.ts';
import { createAlertWorker, type AlertWorker } from './worker.ts';
import type { AlertHooks } from './hooks.ts';

export interface RunningAlerts {
  cache: WatchlistCache;
  worker: AlertWorker;
  stop(): Promise<void>;
}

/**
 * The watchlist cache and the alert worker over an open database, LISTENing for watchlist
 * changes and new detections: inside the hub process by default, or on its own
 * (`npm run hub -- worker`). Several may run on one database: claims never overlap.
 */
export async function startAlerts(
  deps: { db: Database; clock: Clock; log: Log },
  options: { lockTimeoutMs: number; hooks?: AlertHooks },
): Promise<RunningAlerts> {
  const listen = deps.db.listen.bind(deps.db);
  const cache = createWatchlistCache(deps);
  await cache.start(listen);
  // The reaper looks three times per lock timeout (at most every 10 s): a dead worker's items
  // are back within 4/3 of the timeout.
  const worker = createAlertWorker(deps, cache, {
    lockTimeoutMs: options.lockTimeoutMs,
    reapEveryMs: Math.min(10_000, options.lockTimeoutMs / 3),
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  await worker.start(listen);
  deps.log.info({ watchlist_entries: cache.stats().entries }, 'alert worker started');
  return {
    cache,
    worker,
    async stop() {
      await worker.stop();
      await cache.stop();
    },
  };
}
