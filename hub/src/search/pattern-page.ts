/**
 * A pattern search's count and page, newest first (docs/search.md "How it runs").
 *
 * A pattern (`AB1*`, `*12X*`) finds its rows through the trigram index, which keeps no order:
 * every match is fetched from the table and then sorted. Counting and paging apart fetched
 * each match twice, and the page fetched all of them: a pattern matching 27,000 sightings of
 * a frequent plate read 28,000 table pages to show 50 (docs/performance.md "Search"). Here:
 * - one scan of at most 10,001 matches gives both the count and, when that is all of them,
 *   the page (the 50 rows' other columns are then read by primary key, under the search's
 *   own conditions again so its time range prunes the partitions at planning);
 * - when there are more, the page is read month by month, newest first: a month holds its
 *   own partition's matches only, and the walk stops once the page is full, so a busy
 *   pattern costs one or two months instead of the whole table.
 */
import type { DbSession } from '../db/session.ts';
import type { Built } from './sql.ts';
import type { SearchPage, SearchRow } from './search-page.ts';

export const PAGE_COLUMNS = `d.id::text AS id, d.plate_number, d.captured_at, d.confidence, d.direction, d.collector_id, c.site_name,
                    d.plate_normalized, d.full_image_hash, d.crop_image_hash`;

/** Months the capped count reads one by one, newest first, before one arm takes the rest. */
const COUNT_MONTHS = 13;

/** Months walked one by one before one last step takes everything older at once. */
const MONTHS_WALKED = 96;

/** UTC month starts, newest first, from the month holding `from` back `count` months. */
export function monthStarts(from: Date, count: number): Date[] {
  const out: Date[] = [];
  for (let i = 0; i < count; i++) out.push(new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() - i, 1)));
  return out;
}

/**
 * Time slices covering (start, end] newest first: the current month and everything after it
 * (a camera with a clock ahead), each month before it, then everything older in one step.
 */
export function timeSlices(now: Date, start: Date | undefined, end: Date | undefined): Array<{ from?: Date; to?: Date }> {
  const top = end && end < now ? end : now;
  const months = monthStarts(top, MONTHS_WALKED);
  const slices: Array<{ from?: Date; to?: Date }> = [];
  let to: Date | undefined;
  for (const from of months) {
    if (start && from <= start) {
      slices.push({ ...(to ? { to } : {}) });
      return slices;
    }
    slices.push({ from, ...(to ? { to } : {}) });
    to = from;
  }
  slices.push({ ...(to ? { to } : {}) });
  return slices;
}

export interface PatternPageRequest {
  built: Built;
  countCap: number;
  offset: number;
  perPage: number;
  /** The search's own time range (already in `built.where`): bounds the month walk. */
  startDate?: Date | undefined;
  endDate?: Date | undefined;
  now: Date;
}

/** A slice's bounds as literals (made here from dates, never from input): each arm then plans only its own partitions. */
export function sliceBounds(slice: { from?: Date | undefined; to?: Date | undefined }): string {
  return [
    ...(slice.from ? [` AND d.captured_at >= '${slice.from.toISOString()}'::timestamptz`] : []),
    ...(slice.to ? [` AND d.captured_at < '${slice.to.toISOString()}'::timestamptz`] : []),
  ].join('');
}

/**
 * The search's matches as UNION ALL arms, newest slice first (a LIMIT over them reads the
 * newest months first): a year month by month, then the rest in one arm, since each arm costs
 * planning and the months past a year are reached only by a search with fewer matches than
 * the cap.
 */
export function newestFirstArms(slices: ReadonlyArray<{ from?: Date | undefined; to?: Date | undefined }>, columns: string, where: string): string {
  const armed = slices.length > COUNT_MONTHS + 1 ? [...slices.slice(0, COUNT_MONTHS), { to: slices[COUNT_MONTHS - 1]?.from }] : slices;
  return armed.map((slice) => `(SELECT ${columns} FROM detections d WHERE ${where}${sliceBounds(slice)})`).join(' UNION ALL ');
}

export async function patternPage(tx: DbSession, req: PatternPageRequest): Promise<SearchPage> {
  const { built, countCap, offset, perPage } = req;
  const slices = timeSlices(req.now, req.startDate, req.endDate);
  // The capped scan reads the newest months first (one UNION ALL arm per slice, run in order
  // until the cap): when it stops at the cap, the matches it fetched are the ones the page
  // walk below reads again, now from PostgreSQL's buffers, instead of a year's oldest months
  // that no page shows (docs/performance.md "The quiet 10 M run").
  const newestFirst = newestFirstArms(slices, 'd.id, d.captured_at', built.where);
  const first = await tx.sql<SearchRow & { n: number }>(
    `WITH m AS MATERIALIZED (SELECT u.id, u.captured_at FROM (${newestFirst}) u LIMIT ${countCap + 1}),
          total AS (SELECT count(*)::int AS n FROM m),
          page AS (SELECT m.id, m.captured_at FROM m ORDER BY m.captured_at DESC, m.id DESC LIMIT ${perPage} OFFSET ${offset})
     SELECT t.n, ${PAGE_COLUMNS}
     FROM total t
     LEFT JOIN (page p JOIN detections d ON d.id = p.id AND d.captured_at = p.captured_at AND ${built.where} JOIN collectors c ON c.id = d.collector_id) ON TRUE
     ORDER BY d.captured_at DESC, d.id DESC`,
    built.params,
  );
  const counted = Number(first[0]?.n ?? 0);
  if (counted <= countCap) {
    const rows = first.filter((r) => r.id !== null).map(({ n: _n, ...row }) => row as SearchRow);
    return { rows, total: counted, capped: false };
  }
  // More matches than the count reads: the newest offset + perPage, month by month.
  const wanted = offset + perPage;
  const collected: SearchRow[] = [];
  const startParam = built.params.length + 1;
  for (const slice of slices) {
    const bounds: string[] = [];
    const params = [...built.params];
    if (slice.from) {
      params.push(slice.from.toISOString());
      bounds.push(`d.captured_at >= $${startParam + bounds.length}::timestamptz`);
    }
    if (slice.to) {
      params.push(slice.to.toISOString());
      bounds.push(`d.captured_at < $${startParam + bounds.length}::timestamptz`);
    }
    const rows = await tx.sql<SearchRow>(
      `SELECT ${PAGE_COLUMNS}
       FROM detections d JOIN collectors c ON c.id = d.collector_id
       WHERE ${built.where}${bounds.map((b) => ` AND ${b}`).join('')}
       ORDER BY d.captured_at DESC, d.id DESC
       LIMIT ${wanted - collected.length}`,
      params,
    );
    collected.push(...rows);
    if (collected.length >= wanted) break;
  }
  return { rows: collected.slice(offset, wanted), total: countCap, capped: true };
}
