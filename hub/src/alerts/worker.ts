/**
 * The alert worker (docs/alerts.md). Woken by the
 * ingest NOTIFY on `detections`, polling about once a second as the safety net; claims up
 * to 100 items at a time; a stale claim (its worker died) is returned within the lock
 * timeout plus one reaper period (30 s + 10 s by default, under the promised 60 s).
 */
import { DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Listen } from '../db/listen.ts';
import type { WatchlistCache } from '../watchlists/cache.ts';
import type { WatchlistContext } from '../watchlists/context.ts';
import { claimItems, failItem, reapStaleClaims, type ClaimedItem } from './queue.ts';
import { raiseAlerts, type RaisedAlert } from './raise.ts';
import { MAX_ALERT_ATTEMPTS } from './retry.ts';
import { createWakeableLoop } from '../platform/loops/wakeable-loop.ts';
import type { AlertHooks } from './hooks.ts';

/**
 * At most ten passes a second when woken: a busy hub's NOTIFYs (one per stored batch) are
 * gathered into one claim, which saves two commits per batch, for at most 100 ms more
 * before an alert (alerts are due within seconds). The first NOTIFY after a quiet spell is served
 * at once.
 */
export const DEFAULT_MIN_PASS_INTERVAL_MS = 100;

export interface AlertWorkerOptions {
  batchSize?: number;
  pollMs?: number;
  /** Passes begin at most this often when woken (wakeable-loop.ts minIntervalMs). */
  minPassIntervalMs?: number;
  lockTimeoutMs?: number;
  reapEveryMs?: number;
  /** Told about every alert raised (tests, metrics); never awaited by the loop. */
  onRaised?: (alerts: readonly RaisedAlert[]) => void;
  /** Run inside each transaction that raises alerts (hooks.ts; the bot's delivery queue). */
  hooks?: AlertHooks;
}

export interface AlertWorkerStats {
  batches: number;
  items: number;
  alerts: number;
  failures: number;
  reaped: number;
}

export interface AlertWorker {
  /** One pass: reap if due, claim, match, settle. Resolves to the number of items claimed. */
  runOnce(): Promise<number>;
  /** Start the loop (LISTEN on detections when given a listener). */
  start(listen?: Listen): Promise<void>;
  /** Finish the batch in hand, then stop. */
  stop(): Promise<void>;
  wake(): void;
  stats(): AlertWorkerStats;
}

export function createAlertWorker(ctx: WatchlistContext, cache: WatchlistCache, options: AlertWorkerOptions = {}): AlertWorker {
  const batchSize = options.batchSize ?? 100;
  const pollMs = options.pollMs ?? 1000;
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  const reapEveryMs = options.reapEveryMs ?? 10_000;
  const stats: AlertWorkerStats = { batches: 0, items: 0, alerts: 0, failures: 0, reaped: 0 };
  let lastReapMs = -Infinity;
  const loop = createWakeableLoop({
    channel: DETECTIONS_CHANNEL,
    errorWaitMs: pollMs,
    log: ctx.log,
    name: 'alert worker',
    minIntervalMs: options.minPassIntervalMs ?? DEFAULT_MIN_PASS_INTERVAL_MS,
    // A full claim means more is waiting: go again at once.
    pass: async () => ((await runOnce()) < batchSize ? pollMs : 0),
  });

  async function settleOneByOne(items: readonly ClaimedItem[], batchError: unknown): Promise<void> {
    // The batch failed as a whole: try each item alone so one bad detection cannot hold
    // back the others, and charge the failure to the items that really fail.
    ctx.log.warn({ err: batchError, items: items.length }, 'alert batch failed; settling its items one by one');
    for (const item of items) {
      try {
        const index = await cache.index();
        const raised = await ctx.db.transaction((tx) => raiseAlerts(tx, [item], index, ctx.clock.now(), options.hooks));
        note(raised);
      } catch (err) {
        stats.failures += 1;
        const message = err instanceof Error ? err.message : String(err);
        const status = await failItem(ctx.db, item, message, ctx.clock.now());
        ctx.log[status === 'failed' ? 'error' : 'warn'](
          { err, queue_id: item.id, detection_pk: item.detectionPk, attempts: item.attempts, status },
          'alert check failed',
        );
      }
    }
  }

  function note(raised: readonly RaisedAlert[]): void {
    stats.alerts += raised.length;
    if (raised.length > 0) {
      ctx.log.info({ alerts: raised.length }, 'alerts raised');
      options.onRaised?.(raised);
    }
  }

  async function runOnce(): Promise<number> {
    const now = ctx.clock.now();
    if (now.getTime() - lastReapMs >= reapEveryMs) {
      lastReapMs = now.getTime();
      const reaped = await reapStaleClaims(ctx.db, new Date(now.getTime() - lockTimeoutMs), now, MAX_ALERT_ATTEMPTS);
      stats.reaped += reaped.requeued + reaped.failed;
      if (reaped.requeued + reaped.failed > 0) ctx.log.warn(reaped, 'alert queue: returned claims of a worker that stopped');
    }
    const items = await claimItems(ctx.db, batchSize, now);
    if (items.length === 0) return 0;
    stats.batches += 1;
    stats.items += items.length;
    try {
      const index = await cache.index();
      const raised = await ctx.db.transaction((tx) => raiseAlerts(tx, items, index, ctx.clock.now(), options.hooks));
      note(raised);
    } catch (err) {
      await settleOneByOne(items, err);
    }
    return items.length;
  }

  return {
    runOnce,
    stats: () => ({ ...stats }),
    wake: () => loop.wake(),
    start: (listen) => loop.start(listen),
    stop: () => loop.stop(),
  };
}
