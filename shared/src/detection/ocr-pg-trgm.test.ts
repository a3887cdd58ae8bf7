import t from 'tap';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { ocrNormalize, trigramSimilarity } from './ocr.ts';

/**
 * `trigramSimilarity` claims to equal pg_trgm's `similarity()`, so a threshold compared in code
 * and in SQL agrees. This asks the real extension (PGlite: PostgreSQL in-process, UTF-8,
 * C.UTF-8 ctype like a default hub database) about thousands of plate-like pairs.
 */

/** Deterministic pairs (mulberry32), so a failure names a pair that reproduces. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// Plate characters, lower case, non-ASCII letters (Ä, ö, Ω, 京: multibyte trigrams pg_trgm
// hashes), and separators that split words (space, hyphen, dot, underscore).
const CHARS = Array.from('ABCDEFGHJKLMNPRSTUVWXYZ0123456789abcxyzÄöΩ京 -._');

function pairs(count: number): Array<[string, string]> {
  const random = seeded(20260115);
  const pick = () => CHARS[Math.floor(random() * CHARS.length)] ?? 'A';
  const out: Array<[string, string]> = [];
  for (let i = 0; i < count; i += 1) {
    const length = Math.floor(random() * 12);
    const a = Array.from({ length }, pick);
    // Mostly near-misses (what fuzzy plate search compares), some unrelated strings.
    const b = random() < 0.2 ? Array.from({ length: Math.floor(random() * 12) }, pick) : [...a];
    const edits = Math.floor(random() * 3);
    for (let e = 0; e < edits; e += 1) {
      const at = Math.floor(random() * (b.length + 1));
      const kind = random();
      if (kind < 0.4) b.splice(at, 1, pick());
      else if (kind < 0.7) b.splice(at, 0, pick());
      else b.splice(at, 1);
    }
    out.push([a.join(''), b.join('')]);
  }
  return out;
}

t.test('trigramSimilarity equals pg_trgm similarity() on real PostgreSQL', async (t) => {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  t.teardown(() => db.close());
  await db.exec('CREATE EXTENSION pg_trgm');

  const raw = pairs(4000);
  const normalized = raw.map(([a, b]): [string, string] => [ocrNormalize(a), ocrNormalize(b)]);
  const fixed: Array<[string, string]> = [
    ['word', 'two words'],
    ['', ''],
    ['', 'AB123'],
    ['AB 123 CD', 'ab123cd'],
    ['京A12345', '京A12346'],
    ['---', 'A'],
  ];
  const all = [...fixed, ...raw, ...normalized];
  const result = await db.query<{ s: number }>('SELECT similarity(a, b) AS s FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p(a, b, n) ORDER BY n', [
    all.map((p) => p[0]),
    all.map((p) => p[1]),
  ]);
  t.equal(result.rows.length, all.length);

  const mismatches: string[] = [];
  let between = 0;
  all.forEach(([a, b], i) => {
    const expected = Math.fround(Number(result.rows[i]?.s));
    const actual = trigramSimilarity(a, b);
    if (actual !== expected) mismatches.push(`${JSON.stringify(a)} / ${JSON.stringify(b)}: code ${actual}, pg_trgm ${expected}`);
    if (expected > 0 && expected < 1) between += 1;
  });
  t.same(mismatches.slice(0, 20), [], `all ${all.length} pairs agree`);
  // Guards the comparison itself: many pairs score strictly between 0 and 1, so equality is not trivial.
  t.ok(between > all.length / 4, `${between} of ${all.length} pairs score strictly between 0 and 1`);
});
