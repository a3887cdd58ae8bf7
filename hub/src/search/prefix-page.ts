/**
 * A prefix search's count and page, newest first, from the (plate_normalized, captured_at)
 * index alone where it can (docs/search.md "Prefixes").
 *
 * Through the trigram index every match is a table row fetched: a prefix of a frequent plate
 * (over 10,000 sightings a year) fetched 10,001 rows to count and a month of them to page,
 * 144 ms on a table just loaded (docs/performance.md "The quiet 10 M run"). The matches of a
 * prefix are one range of the plate index instead (prefix-range.ts), whose entries hold the
 * plate and the time: counting them needs no row, and neither does finding the page's edge.
 * - The count reads the range newest month first and stops at the cap.
 * - The page: the range's newest entries give the time of the page's last row (the edge);
 *   only rows at or after the edge are fetched, about a page. Over the whole search when the
 *   count holds every match, else month by month, newest first.
 */
import type { DbSession } from '../db/session.ts';
import type { SearchPage, SearchRow } from './search-page.ts';
import { newestFirstArms, PAGE_COLUMNS, sliceBounds, timeSlices, type PatternPageRequest } from './pattern-page.ts';

export async function prefixPage(tx: DbSession, req: PatternPageRequest): Promise<SearchPage> {
  const { built, countCap, offset, perPage } = req;
  const slices = timeSlices(req.now, req.startDate, req.endDate);
  const [count] = await tx.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM (${newestFirstArms(slices, '1', built.where)}) u LIMIT ${countCap + 1}) AS capped`,
    built.params,
  );
  const counted = Number(count?.n ?? 0);
  const wanted = offset + perPage;
  const collected: SearchRow[] = [];
  if (counted > countCap || offset < counted) {
    // Counted in full: one statement over the whole range (the entries it sorts are at most the
    // cap). Capped: month by month, newest first, so a busy prefix reads one or two months.
    for (const slice of counted > countCap ? slices : [{}]) {
      const bounds = sliceBounds(slice);
      const need = wanted - collected.length;
      // The edge: the time of the need-th newest entry in this slice (index entries only).
      // Every row at or after it is fetched, ties included, and the page is cut from them.
      const rows = await tx.sql<SearchRow>(
        `WITH edge AS (
           SELECT min(e.captured_at) AS at FROM (
             SELECT d.captured_at FROM detections d WHERE ${built.where}${bounds} ORDER BY d.captured_at DESC LIMIT ${need}
           ) e
         )
         SELECT ${PAGE_COLUMNS}
         FROM detections d JOIN collectors c ON c.id = d.collector_id
         WHERE ${built.where}${bounds} AND d.captured_at >= (SELECT edge.at FROM edge)
         ORDER BY d.captured_at DESC, d.id DESC
         LIMIT ${need}`,
        built.params,
      );
      collected.push(...rows);
      if (collected.length >= wanted) break;
    }
  }
  return { rows: collected.slice(offset, wanted), total: Math.min(counted, countCap), capped: counted > countCap };
}
