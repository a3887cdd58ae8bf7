/**
 * A watchlist's feed setting (docs/watchlists.md "Feeds"): set, read, remove. Each change is
 * audited in its transaction. The URL follows the webhook rule (platform/http/outbound-url.ts): https,
 * plain http only to a loopback address (a feed server beside the hub), no credentials.
 */
import { z } from 'zod';
import type { DbSession } from '../../db/session.ts';
import { HubError } from '../../platform/errors.ts';
import { targetUrlProblem } from '../../platform/http/outbound-url.ts';
import type { WatchlistActor, WatchlistContext } from '../context.ts';
import { audit, findWatchlist } from '../watchlists.ts';
import { feedFormats, type FeedFormat } from './parse.ts';
import { DEFAULT_RETRO_HUNT_DAYS, MAX_RETRO_HUNT_DAYS } from '../hunt.ts';
import { feedScheduleProblem } from './cron.ts';

/** Hourly at minute 7 by default: stolen-car lists change daily, and minute 0 is everyone's. */
export const DEFAULT_FEED_SCHEDULE = '7 * * * *';

export const feedBodySchema = z
  .object({
    url: z
      .string()
      .min(1)
      .superRefine((v, c) => {
        const problem = targetUrlProblem(v);
        if (problem) c.addIssue({ code: 'custom', message: `url: ${problem}` });
      }),
    format: z.enum(feedFormats),
    schedule: z
      .string()
      .max(100)
      .default(DEFAULT_FEED_SCHEDULE)
      .superRefine((v, c) => {
        const problem = feedScheduleProblem(v);
        if (problem) c.addIssue({ code: 'custom', message: `schedule: ${problem}` });
      }),
    retro_hunt_days: z.number().int().min(0).max(MAX_RETRO_HUNT_DAYS).default(DEFAULT_RETRO_HUNT_DAYS),
  })
  .strict();
export type FeedBody = z.infer<typeof feedBodySchema>;

export interface FeedRow {
  watchlistId: string;
  url: string;
  format: FeedFormat;
  schedule: string;
  retroHuntDays: number;
  etag: string | null;
  lastModified: string | null;
  lastCheckedAt: Date | null;
  lastSuccessAt: Date | null;
  lastStatus: 'ok' | 'not_modified' | 'error' | null;
  lastError: string | null;
  lastChanges: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

type RawFeed = {
  watchlist_id: string;
  url: string;
  format: FeedFormat;
  schedule: string;
  retro_hunt_days: number;
  etag: string | null;
  last_modified: string | null;
  last_checked_at: Date | null;
  last_success_at: Date | null;
  last_status: FeedRow['lastStatus'];
  last_error: string | null;
  last_changes: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
};

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

function feedOf(r: RawFeed): FeedRow {
  return {
    watchlistId: r.watchlist_id,
    url: r.url,
    format: r.format,
    schedule: r.schedule,
    retroHuntDays: Number(r.retro_hunt_days),
    etag: r.etag,
    lastModified: r.last_modified,
    lastCheckedAt: date(r.last_checked_at),
    lastSuccessAt: date(r.last_success_at),
    lastStatus: r.last_status,
    lastError: r.last_error,
    lastChanges: r.last_changes,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** The feed of a live watchlist; 404 when the list has none. */
export async function loadFeed(db: DbSession, watchlistId: string): Promise<FeedRow> {
  await findWatchlist(db, watchlistId);
  const [row] = await db.sql<RawFeed>(`SELECT * FROM watchlist_feeds WHERE watchlist_id = $1`, [watchlistId]);
  if (!row) throw new HubError('not_found', 'this watchlist follows no feed');
  return feedOf(row);
}

/** Every feed of a live, active watchlist (the scheduler's list). */
export async function activeFeeds(db: DbSession): Promise<FeedRow[]> {
  const rows = await db.sql<RawFeed>(
    `SELECT f.* FROM watchlist_feeds f JOIN watchlists w ON w.id = f.watchlist_id AND w.is_active AND w.deleted_at IS NULL ORDER BY f.watchlist_id`,
  );
  return rows.map(feedOf);
}

/** Set or replace the feed. A new URL or format forgets the old validators (they belong to the old file). */
export async function setFeed(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string, body: FeedBody): Promise<FeedRow> {
  return ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId, true);
    const now = ctx.clock.now().toISOString();
    const [row] = await tx.sql<RawFeed>(
      `INSERT INTO watchlist_feeds (watchlist_id, url, format, schedule, retro_hunt_days, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (watchlist_id) DO UPDATE SET url = EXCLUDED.url, format = EXCLUDED.format, schedule = EXCLUDED.schedule,
         retro_hunt_days = EXCLUDED.retro_hunt_days, updated_at = EXCLUDED.updated_at,
         etag = CASE WHEN watchlist_feeds.url = EXCLUDED.url AND watchlist_feeds.format = EXCLUDED.format THEN watchlist_feeds.etag END,
         last_modified = CASE WHEN watchlist_feeds.url = EXCLUDED.url AND watchlist_feeds.format = EXCLUDED.format THEN watchlist_feeds.last_modified END
       RETURNING *`,
      [watchlistId, body.url, body.format, body.schedule, body.retro_hunt_days, actor.userId, now],
    );
    if (!row) throw new Error('upsert returned no row');
    await audit(tx, ctx, actor, 'watchlist.feed_set', 'watchlist', watchlistId, {
      url: body.url,
      format: body.format,
      schedule: body.schedule,
      retro_hunt_days: body.retro_hunt_days,
    });
    return feedOf(row);
  });
}

export async function removeFeed(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId, true);
    const gone = await tx.sql(`DELETE FROM watchlist_feeds WHERE watchlist_id = $1 RETURNING watchlist_id`, [watchlistId]);
    if (gone.length === 0) throw new HubError('not_found', 'this watchlist follows no feed');
    await audit(tx, ctx, actor, 'watchlist.feed_remove', 'watchlist', watchlistId);
  });
}

/** The feed as the API shows it: the setting and the last update's outcome. */
export function presentFeed(f: FeedRow) {
  return {
    watchlist_id: f.watchlistId,
    url: f.url,
    format: f.format,
    schedule: f.schedule,
    retro_hunt_days: f.retroHuntDays,
    last_checked_at: f.lastCheckedAt?.toISOString() ?? null,
    last_success_at: f.lastSuccessAt?.toISOString() ?? null,
    last_status: f.lastStatus,
    last_error: f.lastError,
    last_changes: f.lastChanges,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

/**
 * "Update now": the feed counts as never read, so the schedule's next tick (within a
 * minute) reads it, without validators so even an unchanged file is applied again.
 */
export async function requestFeedUpdate(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string): Promise<FeedRow> {
  return ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId, true);
    const [row] = await tx.sql<RawFeed>(
      `UPDATE watchlist_feeds SET last_checked_at = NULL, etag = NULL, last_modified = NULL WHERE watchlist_id = $1 RETURNING *`,
      [watchlistId],
    );
    if (!row) throw new HubError('not_found', 'this watchlist follows no feed');
    await audit(tx, ctx, actor, 'watchlist.feed_update_requested', 'watchlist', watchlistId);
    return feedOf(row);
  });
}
