/**
 * A pattern search's page (pattern-page.ts) against the plain statement it replaces: the same
 * rows in the same order on every page, whether the count holds every match (one scan) or
 * stops short (the month walk), with and without a time range. On PostgreSQL or PGlite as
 * DATABASE_URL says; the plates come in through batch ingest.
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { patternPage, timeSlices } from './pattern-page.ts';
import { buildSearch } from './sql.ts';
import type { SearchQuery } from './params.ts';
import { patternQuery, plainPage, uploadReads } from './reads.test-helper.ts';

t.test('time slices: newest first, contiguous, the last one open below', async (t) => {
  const now = new Date('2026-03-15T10:00:00Z');
  const all = timeSlices(now, undefined, undefined);
  t.same(all[0], { from: new Date('2026-03-01T00:00:00Z') }, 'the current month takes everything after it too');
  t.same(all[1], { from: new Date('2026-02-01T00:00:00Z'), to: new Date('2026-03-01T00:00:00Z') });
  for (let i = 1; i < all.length; i++) t.same(all[i]?.to, all[i - 1]?.from, `slice ${i} ends where slice ${i - 1} starts`);
  t.same(all.at(-1), { to: all.at(-2)?.from }, 'then everything older in one step');
  t.equal(all.length, 97);

  const ranged = timeSlices(now, new Date('2025-12-20T00:00:00Z'), new Date('2026-02-10T00:00:00Z'));
  t.same(
    ranged,
    [
      { from: new Date('2026-02-01T00:00:00Z') },
      { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-02-01T00:00:00Z') },
      { to: new Date('2026-01-01T00:00:00Z') },
    ],
    'a range walks only its own months (the range itself is in the WHERE)',
  );
  t.same(timeSlices(now, new Date('2026-03-02T00:00:00Z'), undefined), [{}], 'a range inside the current month is one step');
});

const ctx = await adminTestContext(t);
const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'North gate', latitude: 51.5, longitude: 0.1 });
const gate = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: 'hw-north' }, '192.0.2.1');
const now = ctx.clock.now();
const DAY = 86_400_000;

// 40 sightings matching *12X* over ten months (several the same second, so the id decides),
// and 20 that do not.
const reads: Array<[string, number]> = [];
for (let i = 0; i < 40; i++) reads.push([`AB12X${String.fromCharCode(65 + (i % 20))}${i % 3}`, Math.floor(i / 2) * 15 * DAY + (i % 2) * 1000]);
for (let i = 0; i < 20; i++) reads.push([`ZZ99Y${String.fromCharCode(65 + i)}1`, i * 11 * DAY]);
await uploadReads(ctx, gate.api_key, reads, now);

const query = (extra: Partial<SearchQuery> = {}): SearchQuery => patternQuery({ kind: 'wildcard', pattern: '%12X%', shape: 'contains' }, extra);

const expected = (q: SearchQuery): Promise<string[]> => plainPage(ctx, q);

for (const [label, range] of [
  ['all time', {}],
  ['a range of four months', { startDate: new Date(now.getTime() - 200 * DAY), endDate: new Date(now.getTime() - 80 * DAY) }],
] as const) {
  t.test(`pages match the plain statement: ${label}`, async (t) => {
    for (const countCap of [1_000, 5]) {
      for (let page = 1; page <= 7; page++) {
        const q = query({ ...range, page });
        const got = await ctx.deps.db.transaction((tx) =>
          patternPage(tx, {
            built: buildSearch(q),
            countCap,
            offset: (page - 1) * q.perPage,
            perPage: q.perPage,
            startDate: q.startDate,
            endDate: q.endDate,
            now,
          }),
        );
        t.same(
          got.rows.map((r) => r.id),
          await expected(q),
          `count cap ${countCap}, page ${page}`,
        );
        if (countCap === 5) t.same([got.total, got.capped], [5, true], 'a capped count says so');
        else t.equal(got.capped, false);
      }
    }
  });
}

t.test('matches older than the year the count walks month by month are counted and paged by its last arm', async (t) => {
  // Seen from 300 days later, the reads lie 10 to 20 months back: across the boundary where
  // the capped count stops walking months (13) and takes the rest in one arm.
  const later = new Date(now.getTime() + 300 * DAY);
  for (const countCap of [1_000, 5]) {
    for (const page of [1, 3, 6]) {
      const q = query({ page });
      const got = await ctx.deps.db.transaction((tx) =>
        patternPage(tx, { built: buildSearch(q), countCap, offset: (page - 1) * q.perPage, perPage: q.perPage, now: later }),
      );
      t.same(
        got.rows.map((r) => r.id),
        await expected(q),
        `count cap ${countCap}, page ${page}`,
      );
      t.same([got.total, got.capped], countCap === 5 ? [5, true] : [40, false], 'every match counted once');
    }
  }
});

t.test('the API answers a pattern search through it', async (t) => {
  const viewer = await ctx.session('viewer');
  const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=*12X*&per_page=50&purpose=stolen_vehicle&reason=case%201`);
  t.equal(res.status, 200);
  const body = (await res.json()) as { data: Array<{ plate_number: string; captured_at: string }>; meta: { total: number } };
  t.equal(body.meta.total, 40);
  t.equal(body.data.length, 40);
  t.ok(
    body.data.every((r) => r.plate_number.includes('12X')),
    'only matches',
  );
  const times = body.data.map((r) => Date.parse(r.captured_at));
  t.same(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
});
