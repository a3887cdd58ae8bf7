/** The prefix as an index range (prefix-range.ts): pure. */
import t from 'tap';
import { ordersByCodePoint, prefixOf, prefixRange } from './prefix-range.ts';
import { buildSearch } from './sql.ts';
import type { SearchQuery } from './params.ts';

t.test('the range holds exactly the strings with the prefix, in code point order', async (t) => {
  t.same(prefixRange('AB1'), { lo: 'AB1', hi: 'AB2' });
  t.same(prefixRange('AB9'), { lo: 'AB9', hi: 'AB:' }, 'past a digit: the next code point, not a letter');
  t.same(prefixRange('ABZ'), { lo: 'ABZ', hi: 'AB[' });
  t.same(prefixRange('МК5Ж'), { lo: 'МК5Ж', hi: 'МК5З' }, 'Cyrillic: the next code point');
  t.same(prefixRange('A\u{d7ff}'), { lo: 'A\u{d7ff}', hi: 'A\u{e000}' }, 'never a lone surrogate');
  t.same(
    prefixRange(`A${String.fromCodePoint(0x1d7d7)}`),
    { lo: `A${String.fromCodePoint(0x1d7d7)}`, hi: `A${String.fromCodePoint(0x1d7d8)}` },
    'a character outside the BMP is one code point',
  );
  t.throws(() => prefixRange(''));
  // JavaScript compares code units, the same order as code points for these characters.
  const { lo, hi } = prefixRange('AB1');
  for (const inside of ['AB1', 'AB10', 'AB1Z', 'AB1ZZZZZZZZZZZZZZZZZ', 'AB1Ж', 'AB1\u{10000}']) {
    t.ok(inside >= lo && inside < hi, `${inside} is inside`);
  }
  for (const outside of ['AB', 'AB0ZZZ', 'AB2', 'AB20', 'AC1', 'A', 'ZZ']) t.notOk(outside >= lo && outside < hi, `${outside} is outside`);
});

t.test('only a pattern that is a prefix has one', async (t) => {
  t.equal(prefixOf('AB1%'), 'AB1');
  t.equal(prefixOf('%AB1'), undefined, 'a suffix');
  t.equal(prefixOf('%AB1%'), undefined, 'contains');
  t.equal(prefixOf('AB%1%'), undefined, 'a pattern with an inner star');
  t.equal(prefixOf('AB1'), undefined, 'no star at all');
  t.equal(prefixOf('%'), undefined);
});

t.test('only code point collations take the range', async (t) => {
  for (const name of ['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'c.UTF8']) t.ok(ordersByCodePoint(name), name);
  for (const name of ['en_US.UTF-8', 'de_DE.utf8', 'und-x-icu', '', 'C.ISO-8859-1']) t.notOk(ordersByCodePoint(name), name);
});

t.test('the search adds the range only when told the order is code point order', async (t) => {
  const q = (pattern: string, shape: 'prefix' | 'contains'): SearchQuery => ({
    plate: { kind: 'wildcard', pattern, shape },
    collectorIds: [],
    page: 1,
    perPage: 50,
    sort: 'captured_at',
    order: 'desc',
    purpose: { purpose: 'criminal_investigation', case_number: 'T-1', reason: 'test' },
  });
  const ranged = buildSearch(q('AB1%', 'prefix'), [], { codePointOrder: true });
  t.match(ranged.where, /d\.plate_normalized LIKE \$1 AND d\.plate_normalized >= \$2 AND d\.plate_normalized < \$3/);
  t.same(ranged.params, ['AB1%', 'AB1', 'AB2']);
  t.same(buildSearch(q('AB1%', 'prefix')).params, ['AB1%'], 'not told: the LIKE alone');
  t.same(buildSearch(q('%AB1%', 'contains'), [], { codePointOrder: true }).params, ['%AB1%'], 'contains: no range');
});
