import type { PlatformDeps } from '../platform/deps.ts';
import type { LoadMonitor } from './load-monitor.ts';

/**
 * Keeps `deps.load`'s queue depth (pending alert checks, the "detection queue")
 * fresh without a count(*) per batch: at most one refresh per interval, run in the
 * background so no batch waits for it. The backpressure decision uses the last value.
 */
export interface QueueDepthRefresher {
  /** Starts a refresh when the last one is older than the interval; never waits for it. */
  maybeRefresh(): void;
  /** Refreshes now and waits (start-up, tests). */
  refreshNow(): Promise<void>;
}

/** Five seconds: a queue of 10,000 does not appear or drain faster than that. */
export const QUEUE_DEPTH_REFRESH_MS = 5_000;

export function createQueueDepthRefresher(
  deps: Pick<PlatformDeps, 'db' | 'clock' | 'log'> & { load: LoadMonitor },
  intervalMs = QUEUE_DEPTH_REFRESH_MS,
): QueueDepthRefresher {
  let lastStarted = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    lastStarted = deps.clock.now().getTime();
    inFlight ??= (async () => {
      try {
        const [row] = await deps.db.sql<{ depth: string | number }>(`SELECT count(*) AS depth FROM alert_queue WHERE status = 'pending'`);
        deps.load.setQueueDepth(Number(row?.depth ?? 0));
      } catch (err) {
        deps.log.warn({ err }, 'alert queue depth refresh failed');
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };
  return {
    maybeRefresh: () => {
      if (inFlight || deps.clock.now().getTime() - lastStarted < intervalMs) return;
      void refresh();
    },
    refreshNow: refresh,
  };
}
