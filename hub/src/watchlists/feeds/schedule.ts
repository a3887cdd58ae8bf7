/**
 * When feeds are read (docs/watchlists.md "Feeds"). Each feed has a five-field cron schedule
 * in UTC (cron.ts). Once a minute the hub reads the injected clock and
 * updates every feed whose most recent scheduled minute came after its last check: a hub
 * that was down at 03:00 reads a daily feed when it is back, once, not once per missed day.
 * Feeds are read one after another, and one tick at a time (a slow server never stacks).
 */
import type { RetroHunt } from '../hunt.ts';
import type { WatchlistContext } from '../context.ts';
import { feedDue } from './cron.ts';
import { activeFeeds } from './feeds.ts';
import { syncFeed, type SyncResult } from './sync.ts';

export const FEED_TICK_MS = 60_000;

/** Update every due feed now (the schedule's tick; tests call it after moving the clock). */
export async function runDueFeeds(ctx: WatchlistContext, options: { hunt: RetroHunt; timeoutMs?: number }): Promise<Map<string, SyncResult>> {
  const results = new Map<string, SyncResult>();
  for (const feed of await activeFeeds(ctx.db)) {
    if (!feedDue(feed.schedule, feed.lastCheckedAt, ctx.clock.now())) continue;
    try {
      results.set(feed.watchlistId, await syncFeed(ctx, feed.watchlistId, options));
    } catch (err) {
      ctx.log.error({ err, watchlistId: feed.watchlistId }, 'watchlist feed update failed; the next tick tries again');
    }
  }
  return results;
}

export interface FeedSchedule {
  stop(): Promise<void>;
}

export function startFeedSchedule(ctx: WatchlistContext, options: { hunt: RetroHunt; everyMs?: number }): FeedSchedule {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = runDueFeeds(ctx, { hunt: options.hunt })
      .catch((err: unknown) => ctx.log.error({ err }, 'watchlist feed tick failed'))
      .finally(() => {
        busy = false;
      });
  }, options.everyMs ?? FEED_TICK_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
