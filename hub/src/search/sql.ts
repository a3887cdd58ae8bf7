/**
 * The search's SQL (docs/search.md "How it runs"). Pure: a checked query in, the WHERE and
 * ORDER BY with numbered parameters out. `d` is detections, `c` collectors.
 */
import type { SearchQuery } from './params.ts';
import { prefixOf, prefixRange } from './prefix-range.ts';

/** Fuzzy threshold (docs/search.md: above 0.6). */
export const FUZZY_THRESHOLD = 0.6;

export interface Built {
  where: string;
  orderBy: string;
  params: unknown[];
  /** Fuzzy searches rank by similarity, which the select must compute. */
  similarity?: string;
  /**
   * Fuzzy searches: the similar plates with their similarity (columns `plate_normalized`,
   * `sim`) and the conditions other than the plate, so a page can read each plate's
   * sightings newest first instead of sorting every match (search.ts).
   */
  fuzzy?: { plates: string; filters: string; rank: 'similarity' | 'one_edit' };
}

/** A stored plate a one-edit search accepted (one-edit-search.ts), and its rank (0 best). */
export interface RankedPlate {
  plate: string;
  rank: number;
}

/**
 * A search's time range and collectors as conditions on `alias` (a table with `captured_at`
 * and `collector_id`: detections, or the trigram postings of trigram-postings.ts); `p` adds a
 * parameter and returns its placeholder.
 */
export function scopeConditions(q: SearchQuery, alias: string, p: (value: unknown) => string): string[] {
  const where: string[] = [];
  if (q.startDate) where.push(`${alias}.captured_at >= ${p(q.startDate.toISOString())}::timestamptz`);
  if (q.endDate) where.push(`${alias}.captured_at <= ${p(q.endDate.toISOString())}::timestamptz`);
  if (q.collectorIds.length === 1) {
    // One collector: plain equality, so (plate_normalized, collector_id, captured_at)
    // (migration 0036) hands a plate's sightings there newest first and the page stops after
    // 50. Through a set the planner took the plate's own index newest first and fetched every
    // sighting to test its collector: 3,565 pages against 120 (docs/performance.md "Search").
    where.push(`${alias}.collector_id = ${p(q.collectorIds[0])}::uuid`);
  } else if (q.collectorIds.length > 1) {
    // Several: = ANY(ARRAY(...)) is an index condition on the same index (an IN (SELECT ...)
    // became a semi-join that fetched every sighting of the plate to test its collector).
    where.push(`${alias}.collector_id = ANY (ARRAY(SELECT value::uuid FROM json_array_elements_text(${p(JSON.stringify(q.collectorIds))}::json)))`);
  }
  return where;
}

/**
 * `opts.codePointOrder`: the database orders text by code point, so a prefix is an index
 * range (prefix-range.ts).
 * `oneEdit`: for a one-edit query, the plates it matched, already checked; the search reads
 * their sightings like a fuzzy search reads its similar plates.
 */
export function buildSearch(q: SearchQuery, oneEdit: readonly RankedPlate[] = [], opts: { codePointOrder?: boolean } = {}): Built {
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  let similarity: string | undefined;
  let fuzzyPlates: string | undefined;
  switch (q.plate.kind) {
    case 'exact':
      where.push(`d.plate_normalized = ${p(q.plate.value)}`);
      break;
    case 'wildcard': {
      where.push(`d.plate_normalized LIKE ${p(q.plate.pattern)}`);
      // A prefix, where the database orders text by code point: also the index range holding
      // exactly its plates, so (plate_normalized, captured_at) serves it (prefix-range.ts).
      const prefix = opts.codePointOrder ? prefixOf(q.plate.pattern) : undefined;
      if (prefix !== undefined) {
        const { lo, hi } = prefixRange(prefix);
        where.push(`d.plate_normalized >= ${p(lo)}`, `d.plate_normalized < ${p(hi)}`);
      }
      break;
    }
    case 'fuzzy': {
      const key = p(q.plate.key);
      // The similar plates come from `plates` (one row per distinct plate, migration 0015):
      // `%` lets its trigram index find candidates (threshold set per transaction); the strict
      // comparison keeps the rule "above 0.6".
      similarity = `similarity(alpr_confusion_key(d.plate_normalized), ${key})`;
      fuzzyPlates = `SELECT pl.plate_normalized, similarity(alpr_confusion_key(pl.plate_normalized), ${key}) AS sim FROM plates pl
        WHERE alpr_confusion_key(pl.plate_normalized) % ${key} AND similarity(alpr_confusion_key(pl.plate_normalized), ${key}) > ${FUZZY_THRESHOLD}`;
      // ANY(ARRAY(...)), as for one edit: the handful of similar plates become index probes. As
      // a semi-join the planner, misjudging how many plates `%` keeps, read a collector's whole
      // year to hash-join it with them (67 ms against 20 at 4.6 M rows).
      where.push(`d.plate_normalized = ANY (ARRAY(SELECT fp.plate_normalized FROM (${fuzzyPlates}) AS fp))`);
      break;
    }
    case 'one_edit': {
      const list = p(JSON.stringify(oneEdit));
      // ANY(ARRAY(...)): one probe of the (plate_normalized, captured_at) index per plate.
      where.push(`d.plate_normalized = ANY (ARRAY(SELECT m.plate FROM json_to_recordset(${list}::json) AS m (plate text, rank int)))`);
      fuzzyPlates = `SELECT m.plate AS plate_normalized, m.rank FROM json_to_recordset(${list}::json) AS m (plate text, rank int)`;
      break;
    }
    case 'any':
      break;
  }
  where.push(...scopeConditions(q, 'd', p));
  if (q.minConfidence !== undefined) where.push(`d.confidence >= ${p(q.minConfidence)}`);
  if (q.direction) where.push(`d.direction = ${p(q.direction)}`);
  if (q.bbox) {
    where.push(`d.latitude BETWEEN ${p(q.bbox.latMin)} AND ${p(q.bbox.latMax)}`, `d.longitude BETWEEN ${p(q.bbox.lonMin)} AND ${p(q.bbox.lonMax)}`);
  }
  const filters = (fuzzyPlates ? where.slice(1) : where).join(' AND ') || 'TRUE';
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  // Fuzzy: similarity first, then capture time; the id breaks ties so pages are stable.
  const orderBy = similarity ? `${similarity} DESC, d.captured_at DESC, d.id DESC` : `d.${q.sort} ${dir}, d.captured_at ${dir}, d.id ${dir}`;
  return {
    where: where.length > 0 ? where.join(' AND ') : 'TRUE',
    orderBy,
    params,
    ...(similarity ? { similarity } : {}),
    ...(fuzzyPlates ? { fuzzy: { plates: fuzzyPlates, filters, rank: q.plate.kind === 'one_edit' ? ('one_edit' as const) : ('similarity' as const) } } : {}),
  };
}
