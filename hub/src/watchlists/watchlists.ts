/**
 * Watchlist verbs (docs/watchlists.md). Each change commits with its audit row and the
 * NOTIFY that drops every hub process's cache, in one transaction.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { watchlistEntries } from '../db/schema/watchlist-entries.ts';
import { watchlists } from '../db/schema/watchlists.ts';
import { subscriptions } from '../db/schema/subscriptions.ts';
import type { DbSession } from '../db/session.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from './context.ts';
import { notifyWatchlistChanged } from './notify.ts';
import type { CreateWatchlistBody, UpdateWatchlistBody } from './schema.ts';
import { checkRule, ruleViews, setIgnoreLinks, type RuleView } from './rule-verbs.ts';

export type WatchlistRow = typeof watchlists.$inferSelect;
/** A list with its ignore lists and its rule in words (docs/watchlists.md "Scopes"). */
export type WatchlistWithRule = WatchlistRow & Partial<RuleView>;

async function withRule<T extends WatchlistRow>(db: DbSession, rows: T[]): Promise<Array<T & RuleView>> {
  const views = await ruleViews(db, rows);
  return rows.map((r) => ({ ...r, ...(views.get(r.id) ?? { ignoreLists: [], scopeWords: '' }) }));
}

export interface WatchlistSummary extends WatchlistRow, Partial<RuleView> {
  entryCount: number;
  subscribed: boolean;
  /** The list follows a feed (docs/watchlists.md "Feeds"); GET /:id/feed has the details. */
  followsFeed: boolean;
}

export async function audit(
  tx: DbSession,
  ctx: WatchlistContext,
  actor: WatchlistActor,
  action: string,
  targetType: string,
  targetId: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await writeAudit(tx, {
    at: ctx.clock.now(),
    action,
    actor: { userId: actor.userId },
    targetType,
    targetId,
    ip: actor.ip,
    userAgent: actor.userAgent,
    detail,
  });
}

/** A live (not deleted) watchlist, locked for the rest of the transaction when `lock`. */
export async function findWatchlist(db: DbSession, id: string, lock = false): Promise<WatchlistRow> {
  if (!isUuid(id)) throw new HubError('not_found', 'no such watchlist');
  const query = db.db
    .select()
    .from(watchlists)
    .where(and(eq(watchlists.id, id), isNull(watchlists.deletedAt)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new HubError('not_found', 'no such watchlist');
  return row;
}

export async function createWatchlist(ctx: WatchlistContext, actor: WatchlistActor, body: CreateWatchlistBody): Promise<WatchlistWithRule> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    await checkRule(tx, null, body.kind ?? 'watchlist', body);
    const [row] = await tx.db
      .insert(watchlists)
      .values({
        createdBy: actor.userId,
        name: body.name,
        description: body.description ?? null,
        priority: body.priority ?? 'medium',
        isActive: body.is_active ?? true,
        ocrTolerant: body.ocr_tolerant ?? false,
        forgiveOneMisread: body.forgive_one_misread ?? false,
        verificationRequired: body.verification_required ?? true,
        ...(body.retro_hunt_days !== undefined ? { retroHuntDays: body.retro_hunt_days } : {}),
        kind: body.kind ?? 'watchlist',
        mode: body.mode ?? 'listed',
        scope: body.scope ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    if (body.ignore_lists) await setIgnoreLinks(tx, row.id, body.ignore_lists);
    await audit(tx, ctx, actor, 'watchlist.create', 'watchlist', row.id, {
      name: row.name,
      priority: row.priority,
      kind: row.kind,
      mode: row.mode,
      scope: row.scope,
    });
    await notifyWatchlistChanged(tx, row.id);
    const [shown] = await withRule(tx, [row]);
    return shown ?? row;
  });
}

export async function listWatchlists(ctx: WatchlistContext, userId: string): Promise<WatchlistSummary[]> {
  const rows = await ctx.db.db
    .select({
      watchlist: watchlists,
      // The outer table by name: drizzle writes watchlists.id interpolated here as a bare "id", which
      // inside the subquery is the entry's own id (the count was always 0).
      entryCount: sql<number>`(SELECT count(*)::int FROM ${watchlistEntries} e WHERE e.watchlist_id = watchlists.id)`,
      subscribed: sql<boolean>`EXISTS (SELECT 1 FROM ${subscriptions} s WHERE s.watchlist_id = watchlists.id AND s.user_id = ${userId})`,
      followsFeed: sql<boolean>`EXISTS (SELECT 1 FROM watchlist_feeds f WHERE f.watchlist_id = watchlists.id)`,
    })
    .from(watchlists)
    .where(isNull(watchlists.deletedAt))
    .orderBy(asc(watchlists.name), asc(watchlists.id));
  return withRule(
    ctx.db,
    rows.map((r) => ({ ...r.watchlist, entryCount: Number(r.entryCount), subscribed: r.subscribed === true, followsFeed: r.followsFeed === true })),
  );
}

export async function getWatchlist(ctx: WatchlistContext, userId: string, id: string): Promise<WatchlistSummary> {
  const row = await findWatchlist(ctx.db, id);
  const [counts] = await ctx.db.sql<{ entries: number; subscribed: boolean; follows_feed: boolean }>(
    `SELECT (SELECT count(*)::int FROM watchlist_entries WHERE watchlist_id = $1) AS entries,
            EXISTS (SELECT 1 FROM subscriptions WHERE watchlist_id = $1 AND user_id = $2) AS subscribed,
            EXISTS (SELECT 1 FROM watchlist_feeds WHERE watchlist_id = $1) AS follows_feed`,
    [id, userId],
  );
  const summary = { ...row, entryCount: Number(counts?.entries ?? 0), subscribed: counts?.subscribed === true, followsFeed: counts?.follows_feed === true };
  const [shown] = await withRule(ctx.db, [summary]);
  return shown ?? summary;
}

export async function updateWatchlist(ctx: WatchlistContext, actor: WatchlistActor, id: string, body: UpdateWatchlistBody): Promise<WatchlistWithRule> {
  return ctx.db.transaction(async (tx) => {
    const current = await findWatchlist(tx, id, true);
    // The kind is set at creation: an ignore list turned ordinary would start alerting on
    // the plates it was holding back.
    if (body.kind !== undefined && body.kind !== current.kind) throw new HubError('bad_request', 'kind: set when the list is created, it cannot change');
    await checkRule(tx, id, current.kind, {
      mode: body.mode ?? current.mode,
      scope: body.scope === undefined ? current.scope : body.scope,
      ignore_lists: body.ignore_lists,
    });
    const [row] = await tx.db
      .update(watchlists)
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.priority !== undefined ? { priority: body.priority } : {}),
        ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
        ...(body.ocr_tolerant !== undefined ? { ocrTolerant: body.ocr_tolerant } : {}),
        ...(body.forgive_one_misread !== undefined ? { forgiveOneMisread: body.forgive_one_misread } : {}),
        ...(body.verification_required !== undefined ? { verificationRequired: body.verification_required } : {}),
        ...(body.retro_hunt_days !== undefined ? { retroHuntDays: body.retro_hunt_days } : {}),
        ...(body.mode !== undefined ? { mode: body.mode } : {}),
        ...(body.scope !== undefined ? { scope: body.scope } : {}),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(watchlists.id, id))
      .returning();
    if (!row) throw new HubError('not_found', 'no such watchlist');
    if (body.ignore_lists !== undefined) await setIgnoreLinks(tx, id, body.ignore_lists);
    await audit(tx, ctx, actor, 'watchlist.update', 'watchlist', id, {
      changed: Object.keys(body),
      ...(body.scope !== undefined ? { scope: body.scope } : {}),
      ...(body.mode !== undefined ? { mode: body.mode } : {}),
      ...(body.ignore_lists !== undefined ? { ignore_lists: body.ignore_lists } : {}),
    });
    await notifyWatchlistChanged(tx, id);
    const [shown] = await withRule(tx, [row]);
    return shown ?? row;
  });
}

/**
 * Soft delete: alerts already raised keep their watchlist (evidence); the list stops
 * matching at once, disappears from every list, and its subscriptions end.
 */
export async function deleteWatchlist(ctx: WatchlistContext, actor: WatchlistActor, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await findWatchlist(tx, id, true);
    const now = ctx.clock.now();
    await tx.db.update(watchlists).set({ deletedAt: now, isActive: false, updatedAt: now }).where(eq(watchlists.id, id));
    await tx.db.delete(subscriptions).where(eq(subscriptions.watchlistId, id));
    await audit(tx, ctx, actor, 'watchlist.delete', 'watchlist', id, { name: row.name });
    await notifyWatchlistChanged(tx, id);
  });
}
