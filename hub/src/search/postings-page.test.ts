/**
 * A pattern search through the trigram postings (postings-page.ts) against the plain LIKE
 * statement: the same rows in the same order on every page, counted in full or capped, over
 * all time and a range, at one collector and at two, for contains, suffix, prefix and a
 * pattern with a short run beside its trigram. On PostgreSQL or PGlite as DATABASE_URL says;
 * the plates come in through batch ingest, and the key builder (key-builder.ts) posts the first
 * gate's reads only: every page mixes reads from the postings with reads not keyed yet, which
 * the search reads from `detections` (db/unkeyed-reads.ts).
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { postingsPage } from './postings-page.ts';
import { buildSearch } from './sql.ts';
import type { SearchQuery } from './params.ts';
import { patternQuery, plainPage, uploadReads } from './reads.test-helper.ts';
import { plateTrigrams, postingsWhere } from './trigram-postings.ts';
import { postingsAgainstDetections } from './trigram-postings.test-helper.ts';
import { createKeyBuilder } from './key-builder-worker.ts';
import { createLog } from '../platform/log.ts';

const ctx = await adminTestContext(t);
const gates: Array<{ id: string; key: string }> = [];
for (const [name, hw] of [
  ['North gate', 'hw-north'],
  ['South gate', 'hw-south'],
] as const) {
  const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: name, latitude: 51.5, longitude: 0.1 });
  gates.push({ id: created.collectorId, key: (await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: hw }, '192.0.2.1')).api_key });
}
const now = ctx.clock.now();
const DAY = 86_400_000;

// 12X at the start, in the middle, at the end, twice in one plate, after a Cyrillic letter;
// pairs in the same second (the id decides); then plates that hold its characters but not
// the run.
const holders = ['12XAB', 'AB12XC', 'KA9912X', '12X12X', 'Ж12X7', 'A12X'];
const reads: Array<[string, number]> = [];
for (let i = 0; i < 30; i++) reads.push([holders[i % holders.length] as string, Math.floor(i / 2) * 19 * DAY + (i % 2) * 1000]);
const decoys = ['12Y', '1X2AB', 'X12', 'AB1ZX', '2X1', 'AB12', 'B2X'];
for (const [i, p] of decoys.entries()) reads.push([p, i * 11 * DAY]);
await uploadReads(ctx, gates[0]!.key, reads.slice(0, 20), now);
await createKeyBuilder({ db: ctx.deps.db, clock: ctx.clock, log: createLog('silent') }).drain();
await uploadReads(ctx, gates[1]!.key, reads.slice(20), now);

const query = (extra: Partial<SearchQuery> = {}): SearchQuery => patternQuery({ kind: 'wildcard', pattern: '%12X%', shape: 'contains' }, extra);

async function page(q: SearchQuery, countCap: number) {
  const built = buildSearch(q);
  const postings = postingsWhere(q, built.params.length);
  if (!postings) throw new Error(`no postings route for ${JSON.stringify(q.plate)}`);
  return ctx.deps.db.transaction((tx) => postingsPage(tx, { built, postings, countCap, offset: (q.page - 1) * q.perPage, perPage: q.perPage }));
}

t.test('the builder wrote each keyed read its plate trigrams, and the SQL function agrees with trigram-postings.ts', async (t) => {
  const state = await postingsAgainstDetections(ctx.deps.db);
  const trigrams = (list: ReadonlyArray<[string, number]>) => list.reduce((n, [p]) => n + plateTrigrams(p.toUpperCase()).length, 0);
  t.equal(state.stale, 0, 'no posting without its read');
  t.equal(state.missing, trigrams(reads.slice(20)), 'the reads of the second gate are not keyed yet');
  t.equal(state.stored, trigrams(reads.slice(0, 20)), 'one per distinct run of three of each keyed read');
  for (const plate of ['12X12X', 'Ж12X7', 'AB', 'ABC', 'AAAA', '€Ж1234567']) {
    const [row] = await ctx.deps.db.sql<{ g: string[] }>(`SELECT alpr_plate_trigrams($1) AS g`, [plate]);
    t.same([...(row?.g ?? [])].sort(), plateTrigrams(plate).sort(), plate);
  }
});

const patterns: Array<[string, SearchQuery['plate']]> = [
  ['contains', { kind: 'wildcard', pattern: '%12X%', shape: 'contains' }],
  ['suffix', { kind: 'wildcard', pattern: '%12X', shape: 'suffix' }],
  ['prefix', { kind: 'wildcard', pattern: '12X%', shape: 'prefix' }],
  ['a short run beside the trigram', { kind: 'wildcard', pattern: '%A%12X%', shape: 'pattern' }],
];
const scopes: Array<[string, Partial<SearchQuery>]> = [
  ['all time', {}],
  ['a range of five months', { startDate: new Date(now.getTime() - 220 * DAY), endDate: new Date(now.getTime() - 60 * DAY) }],
  ['one collector', { collectorIds: [gates[1]!.id] }],
  ['two collectors and a range', { collectorIds: [gates[0]!.id, gates[1]!.id], startDate: new Date(now.getTime() - 150 * DAY) }],
];
for (const [shape, plate] of patterns) {
  for (const [label, scope] of scopes) {
    t.test(`${shape}, ${label}: pages match the plain statement`, async (t) => {
      const all = await plainPage(ctx, query({ plate, ...scope, perPage: 100 }));
      t.ok(all.length > 0, `${all.length} matches`);
      for (const countCap of [1_000, 5]) {
        for (let n = 1; n <= 6; n++) {
          const q = query({ plate, ...scope, page: n });
          const got = await page(q, countCap);
          t.same(
            got.rows.map((r) => r.id),
            await plainPage(ctx, q),
            `count cap ${countCap}, page ${n}`,
          );
          t.same([got.total, got.capped], countCap === 5 && all.length > 5 ? [5, true] : [all.length, false], 'the count');
        }
      }
    });
  }
}

t.test('which searches take the postings', async (t) => {
  t.ok(postingsWhere(query()), 'a pattern with one trigram');
  t.notOk(postingsWhere(query({ plate: { kind: 'wildcard', pattern: '%12XA%', shape: 'contains' } })), 'two trigrams: the trigram index');
  t.notOk(postingsWhere(query({ plate: { kind: 'wildcard', pattern: '%12%', shape: 'contains' } })), 'none');
  t.notOk(postingsWhere(query({ minConfidence: 0.5 })), 'a confidence floor: not on the postings');
  t.notOk(postingsWhere(query({ direction: 'entering' })), 'a direction');
  t.notOk(postingsWhere(query({ bbox: { latMin: 0, latMax: 1, lonMin: 0, lonMax: 1 } })), 'a place');
  t.notOk(postingsWhere(query({ plate: { kind: 'exact', value: '12X' } })), 'not a pattern');
});

t.test('the API answers a contains search from the postings', async (t) => {
  const viewer = await ctx.session('viewer');
  const url = `${EVENTS_SEARCH_PATH}?plate=*12x*&per_page=50&purpose=stolen_vehicle&reason=case%201`;
  const before = await send(ctx, viewer, 'GET', url);
  t.equal(before.status, 200);
  const body = (await before.json()) as { data: Array<{ id: string }>; meta: { total: number } };
  t.same(
    body.data.map((r) => r.id),
    await plainPage(ctx, query({ perPage: 50 })),
    'the rows of the plain statement, newest first',
  );
  // Proof of the route: one read's postings taken away (as the owner, which only retention is
  // otherwise) and the count follows them, not the table.
  const [gone] = await ctx.deps.db.sql<{ id: string }>(`DELETE FROM detection_trigrams WHERE trigram = '12X' AND id = $1::bigint RETURNING id::text AS id`, [
    body.data[0]!.id,
  ]);
  t.ok(gone);
  const after = (await (await send(ctx, viewer, 'GET', url)).json()) as { data: Array<{ id: string }>; meta: { total: number } };
  t.equal(after.meta.total, body.meta.total - 1);
  t.notOk(
    after.data.some((r) => r.id === gone?.id),
    'the read without its postings is not found',
  );
});
