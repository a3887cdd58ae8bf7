/**
 * One edit apart (docs/search.md "One edit"): the pure part of `plate_match=one_edit` and of
 * watchlists that forgive one misread (docs/watchlists.md). Strings are compared by code
 * point, as PostgreSQL's `varchar(20)` counts them.
 *
 * Deletion neighbourhood: a string and each copy of it with one character removed. Two
 * strings at most one substitution, insertion or deletion apart always share a member (a
 * substitution at i: both lose i; an insertion: the longer one loses it). Sharing one does
 * not prove it: `AB12` and `BA12` (a transposition, two edits) share `A12`, so every
 * candidate goes through `oneEdit`, the real check.
 */

export type EditKind = 'substitution' | 'insertion' | 'deletion';

export interface Edit {
  kind: EditKind;
  /**
   * The differing position in the stored plate, 0-based over its letters and digits: the
   * substituted or the extra character; for a deletion, the place where the missing
   * character would sit (the plate's length when it is missing at the end).
   */
  position: number;
  /** What the query has there (absent for an insertion). */
  queryChar?: string;
  /** What the stored plate has there (absent for a deletion). */
  plateChar?: string;
}

/** The string itself and every copy with one character removed, without repeats. */
export function deletionNeighbourhood(value: string): string[] {
  const chars = Array.from(value);
  const out = new Set<string>([value]);
  for (let i = 0; i < chars.length; i++) out.add([...chars.slice(0, i), ...chars.slice(i + 1)].join(''));
  return [...out];
}

/**
 * `plate` reached from `query` by exactly one substitution, insertion or deletion; null when
 * they are equal or two or more edits apart. The position reported is where the strings first
 * differ (`AAB` -> `AB`: position 1), so the answer is stable.
 */
export function oneEdit(query: string, plate: string): Edit | null {
  const q = Array.from(query);
  const p = Array.from(plate);
  let i = 0;
  while (i < q.length && i < p.length && q[i] === p[i]) i++;
  if (q.length === p.length) {
    if (i === q.length) return null;
    return sameFrom(q, p, i + 1, i + 1) ? { kind: 'substitution', position: i, queryChar: q[i] as string, plateChar: p[i] as string } : null;
  }
  if (p.length === q.length + 1) return sameFrom(q, p, i, i + 1) ? { kind: 'insertion', position: i, plateChar: p[i] as string } : null;
  if (q.length === p.length + 1) return sameFrom(q, p, i + 1, i) ? { kind: 'deletion', position: i, queryChar: q[i] as string } : null;
  return null;
}

function sameFrom(q: readonly string[], p: readonly string[], qi: number, pi: number): boolean {
  if (q.length - qi !== p.length - pi) return false;
  for (let k = 0; qi + k < q.length; k++) if (q[qi + k] !== p[pi + k]) return false;
  return true;
}

export type PlateMatchKind = 'exact' | 'confusion' | EditKind;

export interface PlateMatchDetail {
  kind: PlateMatchKind;
  /** 0 exact, 1 the same to OCR (confusion groups), 2 one edit: the order results come in. */
  rank: 0 | 1 | 2;
  /** Edit as above; for `confusion` the first position where the plates differ; null for `exact`. */
  position: number | null;
  queryChar?: string;
  plateChar?: string;
}

/**
 * How a stored plate matches a one-edit query, both as `plate_normalized`, compared on their
 * confusion keys (`keyOf`, passed in so this file stays free of the OCR tables); null when
 * the keys are two or more edits apart. Characters reported are the normalized ones the
 * user sees, not the keys' group representatives.
 */
export function classifyOneEdit(queryNormalized: string, plateNormalized: string, keyOf: (plate: string) => string): PlateMatchDetail | null {
  const qn = Array.from(queryNormalized);
  const pn = Array.from(plateNormalized);
  if (queryNormalized === plateNormalized) return { kind: 'exact', rank: 0, position: null };
  const qk = keyOf(queryNormalized);
  const pk = keyOf(plateNormalized);
  if (qk === pk) {
    const at = qn.findIndex((ch, i) => ch !== pn[i]);
    return { kind: 'confusion', rank: 1, position: at, queryChar: qn[at] as string, plateChar: pn[at] as string };
  }
  const edit = oneEdit(qk, pk);
  if (!edit) return null;
  const at = edit.position;
  return {
    kind: edit.kind,
    rank: 2,
    position: at,
    ...(edit.kind !== 'insertion' ? { queryChar: qn[at] as string } : {}),
    ...(edit.kind !== 'deletion' ? { plateChar: pn[at] as string } : {}),
  };
}
