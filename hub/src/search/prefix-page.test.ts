/**
 * A prefix search through the plate index's range (prefix-page.ts) against the plain LIKE
 * statement: the same rows in the same order on every page, counted in full or capped (the
 * month walk), with and without a time range, and the plates at the range's edges (the prefix
 * alone, a non-Latin letter after it, its neighbours either side). On PostgreSQL or PGlite as
 * DATABASE_URL says; the plates come in through batch ingest.
 */
import t from 'tap';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { prefixPage } from './prefix-page.ts';
import { PATTERN_READ_AHEAD, prepareSearch } from './search.ts';
import { ordersByCodePoint } from './prefix-range.ts';
import { buildSearch } from './sql.ts';
import type { SearchQuery } from './params.ts';
import { patternQuery, plainPage, uploadReads } from './reads.test-helper.ts';

const ctx = await adminTestContext(t);
const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'North gate', latitude: 51.5, longitude: 0.1 });
const gate = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: 'hw-north' }, '192.0.2.1');
const now = ctx.clock.now();
const DAY = 86_400_000;

// 36 sightings starting AB12 over ten months (pairs in the same second, so the id decides),
// the prefix alone and a Cyrillic letter after it; then neighbours that must not match.
const matching: Array<[string, number]> = [];
for (let i = 0; i < 36; i++) matching.push([`AB12C${String.fromCharCode(65 + (i % 20))}${i % 3}`, Math.floor(i / 2) * 17 * DAY + (i % 2) * 1000]);
matching.push(['AB12', 3 * DAY], ['AB12', 250 * DAY], ['AB12Ж1', 5 * DAY], ['AB12Ж1', 5 * DAY]);
const decoys: Array<[string, number]> = ['AB13C1', 'AB1', 'AB11ZZZ', 'AA12C1', 'ZAB12C', 'AB2', 'AC12C1', 'AB1Ж2'].map((p, i) => [p, i * 9 * DAY]);
const reads = [...matching, ...decoys];
await uploadReads(ctx, gate.api_key, reads, now);

const query = (extra: Partial<SearchQuery> = {}): SearchQuery => patternQuery({ kind: 'wildcard', pattern: 'AB12%', shape: 'prefix' }, extra);

const expected = (q: SearchQuery): Promise<string[]> => plainPage(ctx, q);

async function page(q: SearchQuery, countCap: number, at: Date = now) {
  return ctx.deps.db.transaction((tx) =>
    prefixPage(tx, {
      built: buildSearch(q, [], { codePointOrder: true }),
      countCap,
      offset: (q.page - 1) * q.perPage,
      perPage: q.perPage,
      startDate: q.startDate,
      endDate: q.endDate,
      now: at,
    }),
  );
}

t.test('the test database orders text by code point, so the search takes the range here', async (t) => {
  const [row] = await ctx.deps.db.sql<{ c: string }>(`SELECT datcollate AS c FROM pg_database WHERE datname = current_database()`);
  t.ok(ordersByCodePoint(row?.c ?? ''), `collation ${row?.c}`);
});

for (const [label, range] of [
  ['all time', {}],
  ['a range of four months', { startDate: new Date(now.getTime() - 200 * DAY), endDate: new Date(now.getTime() - 80 * DAY) }],
] as const) {
  t.test(`pages match the plain statement: ${label}`, async (t) => {
    const all = await expected(query({ ...range, perPage: 100 }));
    for (const countCap of [1_000, 5]) {
      for (let n = 1; n <= 7; n++) {
        const q = query({ ...range, page: n });
        const got = await page(q, countCap);
        t.same(
          got.rows.map((r) => r.id),
          await expected(q),
          `count cap ${countCap}, page ${n}`,
        );
        t.same([got.total, got.capped], countCap === 5 && all.length > 5 ? [5, true] : [all.length, false], 'the count');
      }
    }
  });
}

t.test('every plate starting with the prefix, and no other', async (t) => {
  const got = await page(query({ perPage: 100 }), 1_000);
  t.equal(got.total, matching.length);
  t.same(
    [...new Set(got.rows.map((r) => r.plate_normalized))].sort(),
    [...new Set(matching.map(([p]) => ocrNormalize(p)))].sort(),
    'as stored: O, I, L, S folded',
  );
});

t.test('matches older than the year the count walks month by month', async (t) => {
  const later = new Date(now.getTime() + 300 * DAY);
  for (const countCap of [1_000, 5]) {
    for (const n of [1, 3, 6]) {
      const q = query({ page: n });
      const got = await page(q, countCap, later);
      t.same(
        got.rows.map((r) => r.id),
        await expected(q),
        `count cap ${countCap}, page ${n}`,
      );
      t.same([got.total, got.capped], countCap === 5 ? [5, true] : [matching.length, false], 'every match counted once');
    }
  }
});

t.test('the API answers a prefix search through it', async (t) => {
  const viewer = await ctx.session('viewer');
  const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=ab-12*&per_page=50&purpose=stolen_vehicle&reason=case%201`);
  t.equal(res.status, 200);
  const body = (await res.json()) as { data: Array<{ id: string }>; meta: { total: number } };
  t.equal(body.meta.total, matching.length);
  t.same(
    body.data.map((r) => r.id),
    await expected(query({ perPage: 50 })),
    'the rows of the plain statement, newest first',
  );
});

t.test('a pattern search reads ahead on PostgreSQL, and leaves PGlite at its only value', async (t) => {
  const plates: Array<SearchQuery['plate']> = [
    { kind: 'wildcard', pattern: 'AB12%', shape: 'prefix' },
    { kind: 'exact', value: 'AB12' },
  ];
  for (const plate of plates) {
    const setting = await ctx.deps.db.transaction(async (tx) => {
      await prepareSearch(tx, query({ plate }));
      const [row] = await tx.sql<{ v: string }>(`SELECT current_setting('effective_io_concurrency') AS v`);
      return row?.v;
    });
    const expectedValue = plate.kind === 'wildcard' && ctx.deps.db.kind === 'postgres' ? String(PATTERN_READ_AHEAD) : undefined;
    if (expectedValue) t.equal(setting, expectedValue, `${plate.kind} on ${ctx.deps.db.kind}`);
    else t.not(setting, String(PATTERN_READ_AHEAD), `${plate.kind} on ${ctx.deps.db.kind}: untouched`);
  }
  const after = await ctx.deps.db.sql<{ v: string }>(`SELECT current_setting('effective_io_concurrency') AS v`);
  t.not(after[0]?.v, String(PATTERN_READ_AHEAD), 'for the transaction only');
});
