/**
 * One feed update (docs/watchlists.md "Feeds"): read the feed conditionally, parse it, diff
 * it against the list and apply the diff in one transaction with ONE audit row naming what
 * was added, removed and changed, then retro-hunt the added plates in that transaction. A
 * bad feed (HTTP error, timeout, garbage, a diff that fails the sanity rule of diff.ts)
 * changes no entry: only the feed's status row records the error.
 */
import { writeAudit } from '../../platform/audit-writer.ts';
import type { DbSession } from '../../db/session.ts';
import type { WatchlistPriority } from '../../db/schema/watchlists.ts';
import type { WatchlistActor, WatchlistContext } from '../context.ts';
import { notifyWatchlistChanged } from '../notify.ts';
import { findWatchlist } from '../watchlists.ts';
import { diffFeed, diffProblem, type CurrentEntry } from './diff.ts';
import { fetchFeed } from './fetch.ts';
import { loadFeed, type FeedRow } from './feeds.ts';
import { parseFeed } from './parse.ts';
import type { RetroHunt } from '../hunt.ts';

export interface SyncOptions {
  /** The alerts domain's retro-hunt (watchlists/hunt.ts): historical hits for added plates. */
  hunt: RetroHunt;
  timeoutMs?: number | undefined;
  /** Who asked for this update; a scheduled one has none (the audit row names no user). */
  actor?: WatchlistActor | undefined;
}

export type SyncResult =
  | { status: 'not_modified' }
  | { status: 'error'; error: string }
  | { status: 'ok'; added: number; removed: number; changed: number; unchanged: number; historical_hits: number };

/** At most this many plates per kind of change are named in the audit row; counts are always whole. */
const AUDIT_PLATES = 200;

async function recordStatus(
  db: DbSession,
  watchlistId: string,
  now: Date,
  result: SyncResult,
  validators?: { etag: string | null; lastModified: string | null },
): Promise<void> {
  await db.sql(
    `UPDATE watchlist_feeds SET last_checked_at = $2, last_status = $3, last_error = $4,
       last_success_at = CASE WHEN $3 = 'error' THEN last_success_at ELSE $2 END,
       last_changes = CASE WHEN $3 = 'ok' THEN $5::jsonb ELSE last_changes END,
       etag = CASE WHEN $6::boolean THEN $7 ELSE etag END,
       last_modified = CASE WHEN $6::boolean THEN $8 ELSE last_modified END
     WHERE watchlist_id = $1`,
    [
      watchlistId,
      now.toISOString(),
      result.status,
      result.status === 'error' ? result.error.slice(0, 500) : null,
      result.status === 'ok' ? JSON.stringify({ ...result, status: undefined }) : null,
      validators !== undefined,
      validators?.etag ?? null,
      validators?.lastModified ?? null,
    ],
  );
}

export async function syncFeed(ctx: WatchlistContext, watchlistId: string, options: SyncOptions): Promise<SyncResult> {
  const feed = await loadFeed(ctx.db, watchlistId);
  const fetched = await fetchFeed(feed.url, { etag: feed.etag, lastModified: feed.lastModified }, { timeoutMs: options.timeoutMs });
  const now = ctx.clock.now();
  let result: SyncResult;
  if (fetched.kind === 'not_modified') result = { status: 'not_modified' };
  else if (fetched.kind === 'error') result = { status: 'error', error: fetched.error };
  else {
    const parsed = parseFeed(feed.format, fetched.text);
    if ('error' in parsed) result = { status: 'error', error: `the feed is not a valid ${feed.format} list: ${parsed.error}` };
    else return applyFeed(ctx, feed, parsed.entries, { etag: fetched.etag, lastModified: fetched.lastModified }, options);
  }
  await recordStatus(ctx.db, watchlistId, now, result);
  if (result.status === 'error') ctx.log.warn({ watchlistId, error: result.error }, 'watchlist feed update refused; the list is unchanged');
  return result;
}

async function applyFeed(
  ctx: WatchlistContext,
  feed: FeedRow,
  entries: Parameters<typeof diffFeed>[1],
  validators: { etag: string | null; lastModified: string | null },
  options: SyncOptions,
): Promise<SyncResult> {
  const watchlistId = feed.watchlistId;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const list = await findWatchlist(tx, watchlistId, true);
    const current = (
      await tx.sql<{
        id: string;
        plate_normalized: string;
        plate_number: string;
        notes: string | null;
        expires_at: Date | null;
        priority: WatchlistPriority | null;
      }>(`SELECT id, plate_normalized, plate_number, notes, expires_at, priority FROM watchlist_entries WHERE watchlist_id = $1`, [watchlistId])
    ).map((r): CurrentEntry => ({
      id: r.id,
      key: r.plate_normalized,
      plate: r.plate_number,
      notes: r.notes,
      expiresAt: r.expires_at ? new Date(r.expires_at) : null,
      priority: r.priority,
    }));
    const diff = diffFeed(current, entries);
    const problem = diffProblem(current.length, entries.length, diff);
    if (problem) {
      // The validators are not stored: the same bad file is read and refused again next time.
      const refused: SyncResult = { status: 'error', error: `the feed update was refused: ${problem}` };
      await recordStatus(tx, watchlistId, now, refused);
      ctx.log.warn({ watchlistId, error: refused.error }, 'watchlist feed update refused; the list is unchanged');
      return refused;
    }
    const addedBy = options.actor?.userId ?? null;
    const inserted =
      diff.added.length === 0
        ? []
        : await tx.sql<{
            id: string;
            plate_number: string;
            plate_normalized: string;
            notes: string | null;
            expires_at: Date | null;
            priority: WatchlistPriority | null;
          }>(
            `INSERT INTO watchlist_entries (watchlist_id, plate_number, plate_normalized, notes, added_by, added_at, expires_at, priority)
             SELECT $1::uuid, v.plate, v.key, v.notes, $2::uuid, $3::timestamptz, v.expires_at, v.priority
             FROM json_to_recordset($4::json) AS v (plate text, key text, notes text, expires_at timestamptz, priority text)
             ON CONFLICT (watchlist_id, plate_normalized) DO NOTHING
             RETURNING id, plate_number, plate_normalized, notes, expires_at, priority`,
            [watchlistId, addedBy, now.toISOString(), JSON.stringify(diff.added.map((e) => ({ ...e, expires_at: e.expiresAt?.toISOString() ?? null })))],
          );
    if (diff.removed.length > 0) {
      await tx.sql(`DELETE FROM watchlist_entries WHERE watchlist_id = $1 AND id IN (SELECT value::uuid FROM json_array_elements_text($2::json))`, [
        watchlistId,
        JSON.stringify(diff.removed.map((e) => e.id)),
      ]);
    }
    if (diff.changed.length > 0) {
      await tx.sql(
        `UPDATE watchlist_entries e SET plate_number = v.plate, notes = v.notes, expires_at = v.expires_at, priority = v.priority
         FROM json_to_recordset($2::json) AS v (id uuid, plate text, notes text, expires_at timestamptz, priority text)
         WHERE e.watchlist_id = $1 AND e.id = v.id`,
        [
          watchlistId,
          JSON.stringify(
            diff.changed.map((c) => ({
              id: c.id,
              plate: c.after.plate,
              notes: c.after.notes,
              expires_at: c.after.expiresAt?.toISOString() ?? null,
              priority: c.after.priority,
            })),
          ),
        ],
      );
    }
    const changedAny = inserted.length + diff.removed.length + diff.changed.length > 0;
    const hits = await options.hunt(
      tx,
      { id: list.id, name: list.name, priority: list.priority, ocrTolerant: list.ocrTolerant, forgiveOneMisread: list.forgiveOneMisread },
      inserted.map((r) => ({
        id: r.id,
        plate: r.plate_number,
        key: r.plate_normalized,
        notes: r.notes,
        addedBy,
        addedAt: now,
        expiresAt: r.expires_at ? new Date(r.expires_at) : null,
        priority: r.priority,
      })),
      { days: feed.retroHuntDays, now },
    );
    const result: SyncResult = {
      status: 'ok',
      added: inserted.length,
      removed: diff.removed.length,
      changed: diff.changed.length,
      unchanged: diff.unchanged,
      historical_hits: hits.length,
    };
    if (changedAny) {
      await tx.sql(`UPDATE watchlists SET updated_at = $2 WHERE id = $1`, [watchlistId, now.toISOString()]);
      await writeAudit(tx, {
        at: now,
        action: 'watchlist.feed_update',
        ...(options.actor ? { actor: { userId: options.actor.userId } } : {}),
        targetType: 'watchlist',
        targetId: watchlistId,
        ip: options.actor?.ip ?? null,
        userAgent: options.actor?.userAgent ?? null,
        detail: {
          url: feed.url,
          added: inserted.length,
          removed: diff.removed.length,
          changed: diff.changed.length,
          historical_hits: hits.length,
          added_plates: inserted.slice(0, AUDIT_PLATES).map((r) => r.plate_number),
          removed_plates: diff.removed.slice(0, AUDIT_PLATES).map((e) => e.plate),
          changed_plates: diff.changed.slice(0, AUDIT_PLATES).map((c) => c.after.plate),
        },
      });
      await notifyWatchlistChanged(tx, watchlistId);
    }
    await recordStatus(tx, watchlistId, now, result, validators);
    return result;
  });
}
