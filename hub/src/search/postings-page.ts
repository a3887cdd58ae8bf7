/**
 * A pattern search's count and page from the trigram postings (migration 0037; docs/search.md
 * "Patterns from trigram postings"), for a pattern with one trigram (trigram-postings.ts).
 *
 * Through the trigram GIN index every match is a table row fetched: a busy `*12X*` fetched
 * about 10,000 rows from all over a year's partitions to count to the cap, 110 ms from a cold
 * disk at 10 M rows. The postings of one trigram are one range of an index that holds the
 * time, the id, the plate and the collector: the count reads that range newest first, checks
 * the pattern and the collector on each entry, and stops at the cap; the page is the range's
 * next entries after the offset. Only the page's own rows are read from `detections`, under
 * the search's own conditions again. Reads not keyed yet come from `detections` (db/unkeyed-reads.ts).
 */
import type { DbSession } from '../db/session.ts';
import type { SearchPage, SearchRow } from './search-page.ts';
import { PAGE_COLUMNS, type PatternPageRequest } from './pattern-page.ts';
import { keyCursor } from '../db/unkeyed-reads.ts';

export interface PostingsPageRequest extends Pick<PatternPageRequest, 'built' | 'countCap' | 'offset' | 'perPage'> {
  /** The postings' conditions (trigram-postings.ts `postingsWhere`), numbered after `built.params`. */
  postings: { where: string; params: unknown[] };
}

/**
 * The statement: the capped count and the page's rows, parameters `built.params`, then the
 * postings', then the key cursor. Pure.
 *
 * The postings hold the reads up to the key builder's cursor; the reads past it are read from
 * `detections` under the search's own conditions (db/unkeyed-reads.ts), both sides with the same
 * cursor, each newest first and cut at what the count or the page can use, so the postings'
 * range is still read only as far as the page and the cap need.
 */
export function postingsStatement(req: PostingsPageRequest, cursor: string): { text: string; params: unknown[] } {
  const { built, countCap, offset, perPage, postings } = req;
  const c = `$${built.params.length + postings.params.length + 1}::bigint`;
  const keyed = `FROM detection_trigrams t WHERE ${postings.where} AND t.id <= ${c} ORDER BY t.captured_at DESC, t.id DESC`;
  const unkeyed = `FROM detections d WHERE ${built.where} AND d.id > ${c} ORDER BY d.captured_at DESC, d.id DESC`;
  const upTo = (limit: number): string =>
    `(SELECT t.id, t.captured_at ${keyed} LIMIT ${limit}) UNION ALL (SELECT d.id, d.captured_at ${unkeyed} LIMIT ${limit})`;
  return {
    text: `WITH total AS (SELECT count(*)::int AS n FROM (${upTo(countCap + 1)}) AS capped),
          page AS (SELECT u.id, u.captured_at FROM (${upTo(offset + perPage)}) AS u ORDER BY u.captured_at DESC, u.id DESC LIMIT ${perPage} OFFSET ${offset})
     SELECT total.n, ${PAGE_COLUMNS}
     FROM total
     LEFT JOIN (page p JOIN detections d ON d.id = p.id AND d.captured_at = p.captured_at AND ${built.where} JOIN collectors c ON c.id = d.collector_id) ON TRUE
     ORDER BY d.captured_at DESC, d.id DESC`,
    params: [...built.params, ...postings.params, cursor],
  };
}

export async function postingsPage(tx: DbSession, req: PostingsPageRequest): Promise<SearchPage> {
  // Read apart, before: both sides of the statement must use one value (db/unkeyed-reads.ts).
  const { text, params } = postingsStatement(req, await keyCursor(tx));
  const rows = await tx.sql<SearchRow & { n: number }>(text, params);
  const counted = Number(rows[0]?.n ?? 0);
  return {
    rows: rows.filter((r) => r.id !== null).map(({ n: _n, ...row }) => row as SearchRow),
    total: Math.min(counted, req.countCap),
    capped: counted > req.countCap,
  };
}
