/**
 * A prefix pattern (`AB1*`) as a range of the (plate_normalized, captured_at) index
 * (docs/search.md "Prefixes"). Pure.
 *
 * PostgreSQL turns `LIKE 'AB1%'` into an index range only under the "C" collation; under
 * `C.UTF-8` (the test and bench clusters) it does not, although that order is code point order
 * too. The search adds the range itself, `lo <= plate < hi`, but only where the database's
 * order is code point order: under a language collation (`en_US.UTF-8`) the plates starting
 * with a prefix need not lie between two strings, and the search keeps the trigram route.
 */

/** Collation names (`pg_database.datcollate`) that order text by code point. */
export function ordersByCodePoint(collation: string): boolean {
  return /^(C|POSIX|C\.utf-?8)$/i.test(collation.trim());
}

/** The first code point after `cp` that is a valid scalar value (skips the surrogate range). */
function nextCodePoint(cp: number): number {
  const next = cp + 1;
  return next >= 0xd800 && next <= 0xdfff ? 0xe000 : next;
}

/**
 * `[lo, hi)`: in code point order, exactly the strings that start with `prefix`. `hi` is the
 * prefix with its last character's code point raised by one (`AB1` -> `AB2`, `AB9` -> `AB:`),
 * so every string with the prefix sorts below it and nothing else between.
 */
export function prefixRange(prefix: string): { lo: string; hi: string } {
  const chars = Array.from(prefix);
  const last = chars.pop();
  if (last === undefined) throw new Error('prefixRange needs a non-empty prefix');
  return { lo: prefix, hi: chars.join('') + String.fromCodePoint(nextCodePoint(last.codePointAt(0) ?? 0)) };
}

/** The literal part of a prefix pattern (`AB1%` -> `AB1`), or undefined for any other shape. */
export function prefixOf(pattern: string): string | undefined {
  const literal = pattern.slice(0, -1);
  return pattern.endsWith('%') && literal !== '' && !literal.includes('%') && !literal.includes('_') ? literal : undefined;
}
