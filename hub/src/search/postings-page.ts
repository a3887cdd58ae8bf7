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
 * the search's own conditions again.
 */
import type { DbSession } from '../db/session.ts';
import type { SearchPage, SearchRow } from './search.ts';
import { PAGE_COLUMNS, type PatternPageRequest } from './pattern-page.ts';

export interface PostingsPageRequest extends Pick<PatternPageRequest, 'built' | 'countCap' | 'offset' | 'perPage'> {
  /** The postings' conditions (trigram-postings.ts `postingsWhere`), numbered after `built.params`. */
  postings: { where: string; params: unknown[] };
}

/** The statement: the capped count and the page's rows, parameters `built.params` then the postings'. Pure. */
export function postingsStatement(req: PostingsPageRequest): { text: string; params: unknown[] } {
  const { built, countCap, offset, perPage, postings } = req;
  const newestFirst = `FROM detection_trigrams t WHERE ${postings.where} ORDER BY t.captured_at DESC, t.id DESC`;
  return {
    text: `WITH total AS (SELECT count(*)::int AS n FROM (SELECT 1 ${newestFirst} LIMIT ${countCap + 1}) AS capped),
          page AS (SELECT t.id, t.captured_at ${newestFirst} LIMIT ${perPage} OFFSET ${offset})
     SELECT total.n, ${PAGE_COLUMNS}
     FROM total
     LEFT JOIN (page p JOIN detections d ON d.id = p.id AND d.captured_at = p.captured_at AND ${built.where} JOIN collectors c ON c.id = d.collector_id) ON TRUE
     ORDER BY d.captured_at DESC, d.id DESC`,
    params: [...built.params, ...postings.params],
  };
}

export async function postingsPage(tx: DbSession, req: PostingsPageRequest): Promise<SearchPage> {
  const { text, params } = postingsStatement(req);
  const rows = await tx.sql<SearchRow & { n: number }>(text, params);
  const counted = Number(rows[0]?.n ?? 0);
  return {
    rows: rows.filter((r) => r.id !== null).map(({ n: _n, ...row }) => row as SearchRow),
    total: Math.min(counted, req.countCap),
    capped: counted > req.countCap,
  };
}
