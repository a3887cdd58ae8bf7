/**
 * Which pattern searches read the trigram postings (migration 0037, docs/search.md "Patterns
 * from trigram postings"), and their conditions there. Pure.
 *
 * A pattern whose literal runs hold exactly one trigram (`*12X*`, `*XYZ`, `AB1*`, `*AB*12X*`)
 * is served by one key range of (trigram, captured_at, id): every plate it matches holds that
 * trigram, so the range holds every match, and the full pattern is checked on each entry's
 * plate. A pattern with several trigrams (`*12XY*`) is more selective than any one of them,
 * and the trigram GIN index, which intersects them, stays its route; a pattern with none
 * (`*1X*`) has no range to read. The range is in two tiers: fresh postings, one row each, and
 * sealed ones in blocks (migration 0046, posting-blocks.ts).
 */
import type { SearchQuery } from './params.ts';
import { scopeConditions } from './sql.ts';

/** A plate's distinct three-character runs, by code point: the same as SQL `alpr_plate_trigrams` (0037). */
export function plateTrigrams(plate: string): string[] {
  const chars = Array.from(plate);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(''));
  return [...out];
}

/** The one trigram a LIKE pattern's literal runs hold (`%` and `_` separate runs), or undefined for none or several. */
export function soleTrigram(pattern: string): string | undefined {
  const all = new Set(pattern.split(/[%_]/).flatMap(plateTrigrams));
  return all.size === 1 ? [...all][0] : undefined;
}

/** The postings' conditions for a search, on both tiers (migration 0046). */
export interface PostingsWhere {
  /** Every condition on a fresh posting, `t` (detection_trigrams). */
  where: string;
  /** The blocks to open, `b` (trigram_blocks): the trigram and the search's time range. */
  blocks: string;
  /** The conditions on one posting unpacked from a block, `u` (its captured_at, id, collector_id, plate_normalized). */
  entry: string;
  params: unknown[];
}

/**
 * The postings' conditions for a search, or undefined when the search filters on something
 * the postings do not carry (confidence, direction, place): those take the trigram index.
 * The parameters are numbered from `after + 1`, to follow another statement's own; the fresh
 * and the sealed conditions share them.
 */
export function postingsWhere(q: SearchQuery, after = 0): PostingsWhere | undefined {
  if (q.plate.kind !== 'wildcard') return undefined;
  if (q.minConfidence !== undefined || q.direction || q.bbox) return undefined;
  const trigram = soleTrigram(q.plate.pattern);
  if (trigram === undefined) return undefined;
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${after + params.length}`;
  };
  const trigramRef = p(trigram);
  const patternRef = p(q.plate.pattern);
  // The scope's conditions once per alias, on the same parameters: the second call reuses the
  // numbers the first one took, in the same order.
  const refs: string[] = [];
  const scopeOn = (alias: string): string[] => {
    let i = 0;
    return scopeConditions(q, alias, (value) => {
      refs[i] ??= p(value);
      return refs[i++] as string;
    });
  };
  const entryOn = (alias: string): string => [`${alias}.plate_normalized LIKE ${patternRef}`, ...scopeOn(alias)].join(' AND ');
  const where = `t.trigram = ${trigramRef} AND ${entryOn('t')}`;
  const entry = entryOn('u');
  // A block whose span misses the search's range holds none of its rows.
  const blocks = [
    `b.trigram = ${trigramRef}`,
    ...(q.startDate ? [`b.newest_at >= ${p(q.startDate.toISOString())}::timestamptz`] : []),
    ...(q.endDate ? [`b.oldest_at <= ${p(q.endDate.toISOString())}::timestamptz`] : []),
  ].join(' AND ');
  return { where, blocks, entry, params };
}
