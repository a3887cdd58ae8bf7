/**
 * A pattern search through the trigram postings (postings-page.ts) against the plain LIKE
 * statement: the same rows in the same order on every page, counted in full or capped, over
 * all time and a range, at one collector and at two, for contains, suffix, prefix and a
 * pattern with a short run beside its trigram. On PostgreSQL or PGlite as DATABASE_URL says;
 * the plates come in through batch ingest, and the key builder (key-builder.ts) posts the first
 * gate's reads only: every page mixes reads from the postings with reads not keyed yet, which
 * the search reads from `detections` (db/unkeyed-reads.ts). Some keyed reads are sealed in
 * blocks (posting-blocks.ts), small ones that overlap in time and then merged ones, so the
 * pages also come from all three tiers at once; and a seal or merge killed midway changes nothing.
 */
import t, { type Test } from 'tap';
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
import { maintainBlocks, mergeBlocks, sealFresh, TOP_LEVEL, type BlockOptions } from './posting-blocks.ts';

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
// Reads from a camera with a wrong clock, uploaded late: times among the first ones', so the
// blocks they are sealed into overlap those of the first in time.
const late: Array<[string, number]> = [
  ['AB12XC', 2 * 19 * DAY + 500],
  ['12X12X', 500],
  ['KA9912X', 5 * 19 * DAY + 1500],
  ['A12X', -3 * DAY],
];
// Three tiers at once (docs/search.md "Postings sealed in blocks"): the first gate's first 12
// reads keyed and sealed into small blocks, its next 8 keyed and fresh, the second gate's not
// keyed at all; so every page mixes all three.
const db = ctx.deps.db;
const builder = createKeyBuilder({ db, clock: ctx.clock, log: createLog('silent') });
const SMALL: BlockOptions = { cap: 3, sealStep: 4, fanout: 2 };
await uploadReads(ctx, gates[0]!.key, reads.slice(0, 12), now);
await builder.drain();
await sealFresh(db, now, SMALL);
await uploadReads(ctx, gates[0]!.key, reads.slice(12, 20), now);
await builder.drain();
await uploadReads(ctx, gates[1]!.key, reads.slice(20), now);

const query = (extra: Partial<SearchQuery> = {}): SearchQuery => patternQuery({ kind: 'wildcard', pattern: '%12X%', shape: 'contains' }, extra);

async function page(q: SearchQuery, countCap: number) {
  const built = buildSearch(q);
  const postings = postingsWhere(q, built.params.length);
  if (!postings) throw new Error(`no postings route for ${JSON.stringify(q.plate)}`);
  return ctx.deps.db.transaction((tx) => postingsPage(tx, { built, postings, countCap, offset: (q.page - 1) * q.perPage, perPage: q.perPage }));
}

const trigrams = (list: ReadonlyArray<[string, number]>) => list.reduce((n, [p]) => n + plateTrigrams(p.toUpperCase()).length, 0);

t.test('the builder wrote each keyed read its plate trigrams, and the SQL function agrees with trigram-postings.ts', async (t) => {
  const state = await postingsAgainstDetections(ctx.deps.db);
  t.equal(state.stale, 0, 'no posting without its read');
  t.equal(state.missing, trigrams(reads.slice(20)), 'the reads of the second gate are not keyed yet');
  t.equal(state.stored, trigrams(reads.slice(0, 20)), 'one per distinct run of three of each keyed read');
  t.equal(state.sealed, trigrams(reads.slice(0, 12)), 'the first 12 sealed in blocks');
  t.equal(state.badBlocks, 0, 'every block newest first, its summary true');
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
/** Every pattern and scope, page by page, counted in full and capped, against the plain statement. */
async function pagesMatch(t: Test): Promise<void> {
  for (const [shape, plate] of patterns) {
    for (const [label, scope] of scopes) {
      await t.test(`${shape}, ${label}: pages match the plain statement`, async (t) => {
        const all = await plainPage(ctx, query({ plate, ...scope, perPage: 100 }));
        t.ok(all.length > 0, `${all.length} matches`);
        // 1,000: every sealed match is read; 12: the page's edge bounds a second read of the
        // blocks (page 1); 5: the page needs more than the count read, so all blocks are read.
        for (const countCap of [1_000, 12, 5]) {
          for (let n = 1; n <= 6; n++) {
            const q = query({ plate, ...scope, page: n });
            const got = await page(q, countCap);
            t.same(
              got.rows.map((r) => r.id),
              await plainPage(ctx, q),
              `count cap ${countCap}, page ${n}`,
            );
            t.same([got.total, got.capped], all.length > countCap ? [countCap, true] : [all.length, false], 'the count');
          }
        }
      });
    }
  }
}

t.test('sealed, fresh and not keyed', pagesMatch);

t.test('late reads sealed into blocks that overlap the first ones in time, then merged', async (t) => {
  await uploadReads(ctx, gates[0]!.key, late, now);
  await builder.drain();
  t.equal((await sealFresh(db, now, SMALL)) > 0, true, 'a second seal');
  const overlapping = await db.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM trigram_blocks a JOIN trigram_blocks b ON a.trigram = b.trigram AND a.newest_id < b.newest_id
      WHERE a.trigram = '12X' AND a.oldest_at <= b.newest_at AND b.oldest_at <= a.newest_at`,
  );
  t.ok((overlapping[0]?.n ?? 0) > 0, 'blocks of 12X overlap in time');
  await t.test('after the second seal', pagesMatch);
  const merged = await mergeBlocks(db, SMALL);
  t.ok(merged > 0, `${merged} postings merged`);
  const levels = await db.sql<{ level: number }>(`SELECT DISTINCT level FROM trigram_blocks ORDER BY level`);
  t.ok(levels.length > 1 && levels.every((l) => l.level <= TOP_LEVEL), `levels ${levels.map((l) => l.level).join(', ')}`);
  const state = await postingsAgainstDetections(db);
  t.same([state.stale, state.badBlocks], [0, 0]);
  t.same([state.missing, state.stored], [0, state.sealed], 'the builder keyed the second gate too, and all is sealed');
  await t.test('after the merges', pagesMatch);
});

t.test('a seal or a merge killed before its commit changes nothing, and the next pass finishes it', async (t) => {
  await uploadReads(ctx, gates[0]!.key, [['XX12X', 7 * DAY]], now);
  await builder.drain();
  const before = await postingsAgainstDetections(db);
  const [cursor] = await db.sql<{ last_pk: string }>(`SELECT last_pk::text AS last_pk FROM search_key_cursor`);
  for (const statement of [
    `SELECT trigram_blocks_seal(${cursor!.last_pk}, NULL, NULL, 3)`,
    `SELECT trigram_blocks_merge(0::smallint, ARRAY(SELECT DISTINCT trigram FROM trigram_blocks), 3)`,
  ]) {
    await t.rejects(
      db.transaction(async (tx) => {
        await tx.sql(statement);
        throw new Error('killed');
      }),
      /killed/,
    );
    t.same(await postingsAgainstDetections(db), before, `${statement.slice(7, 26)}: as before`);
  }
  t.ok(before.stored > before.sealed, 'the new read is fresh');
  const pass = await maintainBlocks(db, now, { ...SMALL, sealReads: 1 });
  t.ok(pass.sealed > 0, 'the next pass seals');
  const after = await postingsAgainstDetections(db);
  t.same([after.stale, after.missing, after.badBlocks, after.stored - after.sealed], [0, before.missing, 0, 0], 'every keyed posting sealed, once');
  t.same(await maintainBlocks(db, now, { ...SMALL, sealReads: 1 }), { sealed: 0, merged: 0 }, 'and then nothing is due');
  await t.test('after the pass', pagesMatch);
});

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
  // Proof of the route: one read's postings taken out of their blocks as retention would (as
  // the owner, which only retention is otherwise), its row left, and the count follows the
  // postings, not the table.
  const gone = { id: body.data[0]!.id };
  await db.transaction(async (tx) => {
    await tx.sql(`CREATE TEMP TABLE forgotten_reads ON COMMIT DROP AS SELECT id, captured_at FROM detections WHERE id = $1::bigint`, [gone.id]);
    await tx.sql(`SELECT trigram_blocks_forget()`);
  });
  const after = (await (await send(ctx, viewer, 'GET', url)).json()) as { data: Array<{ id: string }>; meta: { total: number } };
  t.equal(after.meta.total, body.meta.total - 1);
  t.notOk(
    after.data.some((r) => r.id === gone.id),
    'the read without its postings is not found',
  );
});
