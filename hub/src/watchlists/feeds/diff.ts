/**
 * What a feed update would change (docs/watchlists.md "Feeds"), and whether that is sane.
 * Pure. A list that follows a feed mirrors it: the feed is the whole list.
 */
import type { WatchlistPriority } from '../../db/schema/watchlists.ts';
import type { FeedEntry } from './parse.ts';

export interface CurrentEntry {
  id: string;
  key: string;
  plate: string;
  notes: string | null;
  expiresAt: Date | null;
  priority: WatchlistPriority | null;
}

export interface FeedDiff {
  added: FeedEntry[];
  removed: CurrentEntry[];
  changed: { id: string; before: CurrentEntry; after: FeedEntry }[];
  unchanged: number;
}

/**
 * A feed that would remove more than half of a list of at least 10 entries is refused: a
 * publisher's half-written file or a truncated download looks exactly like that, and a
 * real list of stolen cars changes by a few percent a day. Small lists (under 10) may
 * change wholesale: 3 of 4 plates going is ordinary there.
 */
export const MAX_REMOVED_SHARE = 0.5;
export const GUARDED_LIST_SIZE = 10;

const sameTime = (a: Date | null, b: Date | null): boolean => (a === null ? b === null : b !== null && a.getTime() === b.getTime());

export function diffFeed(current: readonly CurrentEntry[], feed: readonly FeedEntry[]): FeedDiff {
  const byKey = new Map(current.map((e) => [e.key, e]));
  const feedKeys = new Set(feed.map((e) => e.key));
  const diff: FeedDiff = { added: [], removed: current.filter((e) => !feedKeys.has(e.key)), changed: [], unchanged: 0 };
  for (const entry of feed) {
    const before = byKey.get(entry.key);
    if (!before) diff.added.push(entry);
    else if (
      before.plate !== entry.plate ||
      before.notes !== entry.notes ||
      before.priority !== entry.priority ||
      !sameTime(before.expiresAt, entry.expiresAt)
    ) {
      diff.changed.push({ id: before.id, before, after: entry });
    } else diff.unchanged += 1;
  }
  return diff;
}

/** Why a diff must not be applied, or undefined when it may. */
export function diffProblem(currentSize: number, feedSize: number, diff: FeedDiff): string | undefined {
  if (feedSize === 0 && currentSize > 0) return `the feed lists no plate and would empty the list of ${currentSize}`;
  if (currentSize >= GUARDED_LIST_SIZE && diff.removed.length > currentSize * MAX_REMOVED_SHARE) {
    return `the feed would remove ${diff.removed.length} of ${currentSize} entries (more than ${MAX_REMOVED_SHARE * 100}%)`;
  }
  return undefined;
}
