/**
 * Running a detection search (docs/search.md): one read-only transaction with the trigram
 * threshold set, a capped count and the page. The count stops at 10,000 so a search that
 * matches millions stays cheap; `meta.total_is_lower_bound` says when it stopped.
 */
import type { DbSession } from '../db/session.ts';
import { buildSearch, FUZZY_THRESHOLD, type RankedPlate } from './sql.ts';
import { oneEditPlates } from './one-edit-search.ts';
import type { SearchQuery } from './params.ts';
import { PAGE_COLUMNS, patternPage } from './pattern-page.ts';
import { postingsPage } from './postings-page.ts';
import { prefixPage } from './prefix-page.ts';
import { postingsWhere } from './trigram-postings.ts';
import { ordersByCodePoint, prefixOf } from './prefix-range.ts';
import type { SearchPage, SearchRow } from './search-page.ts';

export const COUNT_CAP = 10_000;

/**
 * Per-transaction settings a plate search needs. The fuzzy threshold lets `%` use the
 * trigram index. Patterns and fuzzy keys: the planner misjudges how many rows a trigram
 * condition keeps and scans every monthly partition in full to sort them; the trigram GIN
 * indexes read only the matches (measured at 1 M rows: 145 ms -> 53 ms for a common
 * 3-character pattern; docs/performance.md "Search").
 */
export async function prepareSearch(tx: DbSession, q: SearchQuery): Promise<void> {
  const settings: Array<[name: string, value: string]> = [];
  if (q.plate.kind === 'fuzzy') settings.push(['pg_trgm.similarity_threshold', String(FUZZY_THRESHOLD)]);
  if (q.plate.kind === 'wildcard' || q.plate.kind === 'fuzzy' || q.plate.kind === 'one_edit') settings.push(['enable_seqscan', 'off']);
  // A pattern's matches are rows fetched from all over a partition (a bitmap heap scan). With
  // read-ahead of that many pages, the reads a table just loaded takes from the disk overlap:
  // at 10 M rows from a cold disk, contains p95 650-710 ms at the default 1, 110-150 at 64,
  // 110-121 at 256 (docs/performance.md "Prefixes from the plate index, and read-ahead").
  // PostgreSQL only: PGlite has no read-ahead and refuses any value but 0.
  if (q.plate.kind === 'wildcard' && tx.kind === 'postgres') settings.push(['effective_io_concurrency', String(PATTERN_READ_AHEAD)]);
  // One round trip for all of them; names and values are the constants above, never input.
  if (settings.length > 0) await tx.sql(`SELECT ${settings.map(([name, value]) => `set_config('${name}', '${value}', true)`).join(', ')}`);
}

/** Pages a pattern search's table scans ask for ahead (PostgreSQL's effective_io_concurrency). */
export const PATTERN_READ_AHEAD = 256;

/** Whether each database orders text by code point (prefix-range.ts), asked once per database handle. */
const codePointOrder = new WeakMap<DbSession, Promise<boolean>>();

function ordersByCodePointIn(db: DbSession): Promise<boolean> {
  let known = codePointOrder.get(db);
  if (!known) {
    known = db
      .sql<{ collation: string }>(`SELECT datcollate AS collation FROM pg_database WHERE datname = current_database()`)
      .then((rows) => ordersByCodePoint(rows[0]?.collation ?? ''))
      .catch(() => {
        // Not remembered: the next search asks again; this one takes the trigram route.
        codePointOrder.delete(db);
        return false;
      });
    codePointOrder.set(db, known);
  }
  return known;
}

/** `now`: where a pattern search's month walk starts (pattern-page.ts); only its speed depends on it. */
export async function searchDetections(db: DbSession, q: SearchQuery, now: Date = new Date()): Promise<SearchPage> {
  // Asked before the transaction: PGlite has one connection, which the transaction holds.
  const codePoint = q.plate.kind === 'wildcard' && prefixOf(q.plate.pattern) !== undefined && (await ordersByCodePointIn(db));
  return db.transaction(async (tx) => {
    await prepareSearch(tx, q);
    let ranked: RankedPlate[] = [];
    if (q.plate.kind === 'one_edit') {
      ranked = (await oneEditPlates(tx, q.plate)).map((m) => ({ plate: m.plate, rank: m.match.rank }));
      if (ranked.length === 0) return { rows: [], total: 0, capped: false };
    }
    const built = buildSearch(q, ranked, { codePointOrder: codePoint });
    const offset = (q.page - 1) * q.perPage;
    if (q.plate.kind === 'wildcard' && q.sort === 'captured_at' && q.order === 'desc') {
      const req = { built, countCap: COUNT_CAP, offset, perPage: q.perPage, startDate: q.startDate, endDate: q.endDate, now };
      if (codePoint) return prefixPage(tx, req);
      // One trigram in the pattern: its postings, newest first (postings-page.ts). Else the
      // trigram index, which intersects several trigrams (pattern-page.ts).
      const postings = postingsWhere(q, built.params.length);
      return postings ? postingsPage(tx, { ...req, postings }) : patternPage(tx, req);
    }
    const [count] = await tx.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM detections d WHERE ${built.where} LIMIT ${COUNT_CAP + 1}) AS capped`,
      built.params,
    );
    const counted = Number(count?.n ?? 0);
    const columns = PAGE_COLUMNS;
    const rows =
      offset >= Math.min(counted, COUNT_CAP + 1) && counted <= COUNT_CAP
        ? []
        : built.fuzzy
          ? // Per similar plate, its newest sightings up to the end of the page (index order on
            // (plate_normalized, captured_at)); then the page across plates: similarity (or the
            // one-edit rank), time, id.
            await tx.sql<SearchRow>(
              `SELECT ${columns}${built.fuzzy.rank === 'similarity' ? ', fp.sim AS similarity' : ''}
               FROM (${built.fuzzy.plates}) AS fp
               CROSS JOIN LATERAL (
                 SELECT d.* FROM detections d
                 WHERE d.plate_normalized = fp.plate_normalized AND ${built.fuzzy.filters}
                 ORDER BY d.captured_at DESC, d.id DESC LIMIT ${offset + q.perPage}
               ) AS d
               JOIN collectors c ON c.id = d.collector_id
               ORDER BY ${built.fuzzy.rank === 'similarity' ? 'fp.sim DESC' : 'fp.rank ASC'}, d.captured_at DESC, d.id DESC
               LIMIT ${q.perPage} OFFSET ${offset}`,
              built.params,
            )
          : await tx.sql<SearchRow>(
              `SELECT ${columns}${built.similarity ? `, ${built.similarity} AS similarity` : ''}
               FROM detections d JOIN collectors c ON c.id = d.collector_id
               WHERE ${built.where}
               ORDER BY ${built.orderBy}
               LIMIT ${q.perPage} OFFSET ${offset}`,
              built.params,
            );
    return { rows, total: Math.min(counted, COUNT_CAP), capped: counted > COUNT_CAP };
  });
}
