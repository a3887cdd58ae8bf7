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
 * the search's own conditions again. Reads not keyed yet come from `detections` (db/unkeyed-reads.ts);
 * postings sealed in blocks (migration 0046) are unpacked block by block, newest first.
 */
import type { DbSession } from '../db/session.ts';
import type { SearchPage, SearchRow } from './search-page.ts';
import { PAGE_COLUMNS, type PatternPageRequest } from './pattern-page.ts';
import { keyCursor } from '../db/unkeyed-reads.ts';
import type { PostingsWhere } from './trigram-postings.ts';

export interface PostingsPageRequest extends Pick<PatternPageRequest, 'built' | 'countCap' | 'offset' | 'perPage'> {
  /** The postings' conditions (trigram-postings.ts `postingsWhere`), numbered after `built.params`. */
  postings: PostingsWhere;
}

/**
 * The statement: the capped count and the page's rows, parameters `built.params`, then the
 * postings', then the key cursor. Pure.
 *
 * Three sources, each cut at what the count or the page can use:
 *   - fresh postings up to the key builder's cursor, one key range newest first;
 *   - sealed postings (migration 0046), unpacked block by block, newest block first, until
 *     the count's cap + 1 matches (`sealed`). When that is all of them, the page takes its
 *     newest from there. When there are more, the page's last row is no older than the
 *     page-th newest of those, so a second read opens only the blocks that reach that time
 *     and keeps their postings from it on: blocks may overlap in time (a camera with a wrong
 *     clock, a backlog sealed late), which this handles whatever order they come in;
 *   - the reads past the cursor, from `detections` under the search's own conditions
 *     (db/unkeyed-reads.ts).
 * All three use the same cursor, and a posting is fresh or sealed in one snapshot, never
 * both, so a read is counted once.
 */
export function postingsStatement(req: PostingsPageRequest, cursor: string): { text: string; params: unknown[] } {
  const { built, countCap, offset, perPage, postings } = req;
  const c = `$${built.params.length + postings.params.length + 1}::bigint`;
  const wanted = offset + perPage;
  const order = (alias: string): string => `ORDER BY ${alias}.captured_at DESC, ${alias}.id DESC`;
  const fresh = `FROM detection_trigrams t WHERE ${postings.where} AND t.id <= ${c} ${order('t')}`;
  const unkeyed = `FROM detections d WHERE ${built.where} AND d.id > ${c} ${order('d')}`;
  const unpacked = (blocks: string): string =>
    `CROSS JOIN LATERAL unnest(b.captured_ats, b.ids, b.collector_ids, b.plates) AS u (captured_at, id, collector_id, plate_normalized)
     WHERE ${postings.entry} AND u.id <= ${c}${blocks}`;
  return {
    text: `WITH sealed AS MATERIALIZED (
            SELECT u.id, u.captured_at
              FROM (SELECT b.captured_ats, b.ids, b.collector_ids, b.plates FROM trigram_blocks b WHERE ${postings.blocks}
                    ORDER BY b.newest_at DESC, b.newest_id DESC) b
            ${unpacked('')}
            LIMIT ${countCap + 1}),
          -- Once: whether \`sealed\` holds every sealed match, and if not, the page's edge.
          sealed_edge AS (
            SELECT c.n <= ${countCap} AS all_in,
                   CASE WHEN c.n > ${countCap}
                        THEN coalesce((SELECT s.captured_at FROM sealed s ${order('s')} OFFSET ${wanted - 1} LIMIT 1), '-infinity') END AS at
              FROM (SELECT count(*) AS n FROM sealed) c),
          sealed_top AS (
            (SELECT s.id, s.captured_at FROM sealed s WHERE (SELECT e.all_in FROM sealed_edge e) ${order('s')} LIMIT ${wanted})
            UNION ALL
            (SELECT u.id, u.captured_at FROM trigram_blocks b
             ${unpacked(
               ` AND NOT (SELECT e.all_in FROM sealed_edge e) AND ${postings.blocks}` +
                 ` AND b.newest_at >= (SELECT e.at FROM sealed_edge e) AND u.captured_at >= (SELECT e.at FROM sealed_edge e)`,
             )}
             ${order('u')} LIMIT ${wanted})),
          total AS (SELECT count(*)::int AS n FROM (
            (SELECT t.id ${fresh} LIMIT ${countCap + 1}) UNION ALL (SELECT s.id FROM sealed s) UNION ALL (SELECT d.id ${unkeyed} LIMIT ${countCap + 1})) AS capped),
          page AS (SELECT u.id, u.captured_at FROM (
            (SELECT t.id, t.captured_at ${fresh} LIMIT ${wanted}) UNION ALL (SELECT s.id, s.captured_at FROM sealed_top s)
            UNION ALL (SELECT d.id, d.captured_at ${unkeyed} LIMIT ${wanted})) AS u
            ${order('u')} LIMIT ${perPage} OFFSET ${offset})
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
