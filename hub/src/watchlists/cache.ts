/**
 * The watchlist cache (docs/watchlists.md "Cache"): every active
 * entry in memory, indexed for matching. Fully reloaded every 60 s, and dropped at once
 * when any hub process commits a watchlist change (the NOTIFY in notify.ts), so it is at
 * most 60 s stale even if a notification is lost (a dropped LISTEN connection).
 */
import { WATCHLIST_CHANNEL } from '../db/channels.ts';
import type { Listen } from '../db/listen.ts';
import type { Unlisten } from '../db/open-postgres.ts';
import type { WatchlistPriority } from '../db/schema/watchlists.ts';
import type { WatchlistContext } from './context.ts';
import { buildWatchlistIndex, type IndexedEntry, type IndexRules, type WatchlistIndex } from './match.ts';
import { loadListRules, type RuledList } from './rules-sql.ts';

export const WATCHLIST_CACHE_REFRESH_MS = 60_000;

export interface WatchlistCacheStats {
  loads: number;
  invalidations: number;
  entries: number;
  loadedAt: Date | null;
}

export interface WatchlistCache {
  /** The current index: reloaded first when older than the refresh period or invalidated. */
  index(): Promise<WatchlistIndex>;
  /** Drop the index; the next `index()` reloads (a NOTIFY from any process calls this). */
  invalidate(): void;
  stats(): WatchlistCacheStats;
  /** LISTEN for changes and reload in the background every refresh period. */
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
}

interface Loaded {
  index: WatchlistIndex;
  generation: number;
  atMs: number;
}

/** The head entry an allow-list alerts through: no plate, the list's name and priority. */
export function allowListHead(id: string, list: RuledList): IndexedEntry {
  return {
    entryId: '',
    watchlistId: id,
    watchlistName: list.name,
    priority: list.priority,
    ocrTolerant: false,
    forgiveOneMisread: false,
    plateNumber: '',
    plateNormalized: '',
    notes: null,
    addedBy: null,
    addedAt: new Date(0),
    rule: list.rule,
  };
}

async function loadIndex(ctx: WatchlistContext): Promise<WatchlistIndex> {
  const ruled = await loadListRules(ctx.db);
  const { entries, ignored } = await loadEntries(ctx, ruled);
  const allowLists = [...ruled].filter(([, l]) => l.rule.mode === 'allow_list').map(([id, l]) => allowListHead(id, l));
  return buildWatchlistIndex(entries, { allowLists, ignored });
}

async function loadEntries(
  ctx: WatchlistContext,
  ruled: ReadonlyMap<string, RuledList>,
): Promise<{ entries: IndexedEntry[]; ignored: NonNullable<IndexRules['ignored']>[number][] }> {
  const rows = await ctx.db.sql<{
    entry_id: string;
    watchlist_id: string;
    name: string;
    priority: WatchlistPriority;
    ocr_tolerant: boolean;
    forgive_one_misread: boolean;
    plate_number: string;
    plate_normalized: string;
    notes: string | null;
    added_by: string | null;
    added_at: Date;
    expires_at: Date | null;
    entry_priority: WatchlistPriority | null;
    kind: string;
  }>(
    `SELECT w.kind, e.id AS entry_id, e.watchlist_id, w.name, w.priority, w.ocr_tolerant, w.forgive_one_misread, e.plate_number, e.plate_normalized, e.notes, e.added_by, e.added_at, e.expires_at, e.priority AS entry_priority
     FROM watchlist_entries e JOIN watchlists w ON w.id = e.watchlist_id
     WHERE w.is_active AND w.deleted_at IS NULL`,
  );
  const entries: IndexedEntry[] = [];
  const ignored: NonNullable<IndexRules['ignored']>[number][] = [];
  for (const r of rows) {
    if (r.kind === 'ignore') {
      ignored.push({ plateNormalized: r.plate_normalized, ignoreListId: r.watchlist_id, expiresAt: r.expires_at ? new Date(r.expires_at) : null });
      continue;
    }
    const rule = ruled.get(r.watchlist_id)?.rule;
    entries.push({
      entryId: r.entry_id,
      watchlistId: r.watchlist_id,
      watchlistName: r.name,
      priority: r.priority,
      ocrTolerant: r.ocr_tolerant,
      forgiveOneMisread: r.forgive_one_misread,
      plateNumber: r.plate_number,
      plateNormalized: r.plate_normalized,
      notes: r.notes,
      addedBy: r.added_by,
      addedAt: new Date(r.added_at),
      expiresAt: r.expires_at ? new Date(r.expires_at) : null,
      entryPriority: r.entry_priority,
      ...(rule ? { rule } : {}),
    });
  }
  return { entries, ignored };
}

export function createWatchlistCache(ctx: WatchlistContext, options: { refreshMs?: number } = {}): WatchlistCache {
  const refreshMs = options.refreshMs ?? WATCHLIST_CACHE_REFRESH_MS;
  let generation = 0;
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let loads = 0;
  let invalidations = 0;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: Unlisten | undefined;

  const fresh = (l: Loaded | undefined): boolean => l !== undefined && l.generation === generation && ctx.clock.now().getTime() - l.atMs < refreshMs;

  async function loadOnce(): Promise<Loaded> {
    const startedAt = generation;
    const atMs = ctx.clock.now().getTime();
    const index = await loadIndex(ctx);
    loads += 1;
    return { index, generation: startedAt, atMs };
  }

  async function index(): Promise<WatchlistIndex> {
    // A change committed while a load ran may be missing from it: load again (bounded; a
    // stream of changes faster than a load still gets a result at most one change old).
    for (let attempt = 0; attempt < 3; attempt++) {
      if (loaded && fresh(loaded)) return loaded.index;
      loading ??= loadOnce().finally(() => {
        loading = undefined;
      });
      const result = await loading;
      if (!loaded || result.generation >= loaded.generation) loaded = result;
      if (result.generation === generation) return result.index;
    }
    return (loaded as Loaded).index;
  }

  function invalidate(): void {
    generation += 1;
    invalidations += 1;
  }

  return {
    index,
    invalidate,
    stats: () => ({ loads, invalidations, entries: loaded?.index.size ?? 0, loadedAt: loaded ? new Date(loaded.atMs) : null }),
    async start(listen) {
      if (listen) unlisten = await listen(WATCHLIST_CHANNEL, () => invalidate());
      await index();
      timer = setInterval(() => {
        invalidate();
        index().catch((err: unknown) => ctx.log.error({ err }, 'watchlist cache reload failed; the next lookup retries'));
      }, refreshMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
