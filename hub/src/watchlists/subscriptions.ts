/** A user's alert subscriptions (docs/watchlists.md "Subscriptions"). */
import { and, asc, eq, isNull } from 'drizzle-orm';
import { subscriptions } from '../db/schema/subscriptions.ts';
import type { StatementSession } from '../db/session.ts';
import { watchlists } from '../db/schema/watchlists.ts';
import type { WatchlistActor, WatchlistContext } from './context.ts';
import { audit, findWatchlist } from './watchlists.ts';

/** Idempotent: subscribing twice is one subscription. Returns whether it is new. */
export async function subscribe(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId);
    const rows = await tx.db.insert(subscriptions).values({ userId: actor.userId, watchlistId, createdAt: ctx.clock.now() }).onConflictDoNothing().returning();
    if (rows.length > 0) await audit(tx, ctx, actor, 'watchlist.subscribe', 'watchlist', watchlistId);
    return rows.length > 0;
  });
}

/** Idempotent too. Returns whether there was a subscription to end. */
export async function unsubscribe(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId);
    const rows = await tx.db
      .delete(subscriptions)
      .where(and(eq(subscriptions.userId, actor.userId), eq(subscriptions.watchlistId, watchlistId)))
      .returning();
    if (rows.length > 0) await audit(tx, ctx, actor, 'watchlist.unsubscribe', 'watchlist', watchlistId);
    return rows.length > 0;
  });
}

export async function mySubscriptions(ctx: WatchlistContext, userId: string) {
  return ctx.db.db
    .select({ watchlistId: watchlists.id, name: watchlists.name, priority: watchlists.priority, isActive: watchlists.isActive, since: subscriptions.createdAt })
    .from(subscriptions)
    .innerJoin(watchlists, eq(watchlists.id, subscriptions.watchlistId))
    .where(and(eq(subscriptions.userId, userId), isNull(watchlists.deletedAt)))
    .orderBy(asc(watchlists.name), asc(watchlists.id));
}

/** Whether `userId` is subscribed to a live (not deleted) list: the live channel's feed check. */
export async function isSubscribed(db: StatementSession, userId: string, watchlistId: string): Promise<boolean> {
  const rows = await db.sql(
    'SELECT 1 FROM subscriptions s JOIN watchlists w ON w.id = s.watchlist_id WHERE s.user_id = $1 AND s.watchlist_id = $2 AND w.deleted_at IS NULL',
    [userId, watchlistId],
  );
  return rows.length > 0;
}

/** Every (user, list) subscription among `watchlistIds`: who hears a batch of alerts live. */
export async function subscribersOf(db: StatementSession, watchlistIds: readonly string[]): Promise<{ user_id: string; watchlist_id: string }[]> {
  return db.sql<{ user_id: string; watchlist_id: string }>(
    `SELECT user_id, watchlist_id FROM subscriptions WHERE watchlist_id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
    [JSON.stringify(watchlistIds)],
  );
}
