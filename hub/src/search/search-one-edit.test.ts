/**
 * `plate_match=one_edit` over the API (docs/search.md "One edit"), on PostgreSQL or PGlite
 * as DATABASE_URL says: the plates come in through batch ingest and no key builder runs until
 * the last test, so the searches find them among the reads not keyed yet (db/unkeyed-reads.ts); the
 * last test builds the keys (key-builder.ts) and searches again.
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createKeyBuilder } from './key-builder-worker.ts';

const ctx = await adminTestContext(t);
const viewer = await ctx.session('viewer');
const REASON = 'purpose=stolen_vehicle&reason=case%202026-118';

const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'East gate', latitude: 51.5, longitude: 0.1 });
const gate = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: 'hw-east' }, '192.0.2.1');
const base = ctx.clock.now().getTime();

async function upload(reads: Array<[string, number]>) {
  await uploadBatch(
    ctx.app,
    gate.api_key,
    reads.map(([text, ago]) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(base - ago * 60_000).toISOString() }),
      plateCrop: jpegLike(300),
    })),
  );
}

// The query is AB12CDE (stored as AB12C0E: D reads as 0).
await upload([
  ['AB12CXE', 60], // out-of-group substitution at 5 (0 -> X)
  ['AB12CDE', 50], // the plate itself
  ['A812CDE', 40], // in-group: B read as 8
  ['AB123CDE', 30], // insertion of 3 at 4
  ['AB1CDE', 20], // deletion of the 2 at 3
  ['AB12CDEK', 10], // insertion at the end
  // Decoys two or more edits away; some share a deletion key with the query.
  ['BA12CDE', 5], // transposition: shares A12CDE
  ['AB12CXY', 5], // two substitutions
  ['XAB12CD', 5], // insertion + deletion: shares AB12CD
  ['AB2CD', 5], // two deletions
  ['KB12CXE', 5], // two out-of-group substitutions
  ['ZZ99ZZZ', 5], // unrelated
]);
await upload([['AB12CXE', 1]]); // a second sighting of a known plate: no new keys, still found

type Match = { kind: string; position: number | null; query_char?: string; plate_char?: string };
type Page = { data: Array<{ plate_number: string; match?: Match; similarity?: number }>; meta: { total: number } };
const search = async (query: string) => {
  const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?${query}&${REASON}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
};
const status = async (query: string) => (await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?${query}&${REASON}`)).status;

t.test('finds every plate one edit away, ranked, each saying how it matched', async (t) => {
  const page = await search('plate=AB12CDE&plate_match=one_edit');
  t.same(
    page.data.map((d) => d.plate_number),
    ['AB12CDE', 'A812CDE', 'AB12CXE', 'AB12CDEK', 'AB1CDE', 'AB123CDE', 'AB12CXE'],
    'exact, then the same to OCR, then single edits (newest first within a rank)',
  );
  t.equal(page.meta.total, 7);
  const byPlate = new Map(page.data.map((d) => [d.plate_number, d.match]));
  t.same(byPlate.get('AB12CDE'), { kind: 'exact', position: null });
  t.same(byPlate.get('A812CDE'), { kind: 'confusion', position: 1, query_char: 'B', plate_char: '8' }, 'in-group substitution');
  t.same(byPlate.get('AB12CXE'), { kind: 'substitution', position: 5, query_char: '0', plate_char: 'X' }, 'out-of-group substitution');
  t.same(byPlate.get('AB123CDE'), { kind: 'insertion', position: 4, plate_char: '3' });
  t.same(byPlate.get('AB12CDEK'), { kind: 'insertion', position: 7, plate_char: 'K' });
  t.same(byPlate.get('AB1CDE'), { kind: 'deletion', position: 3, query_char: '2' });
  t.notOk(
    page.data.some((d) => d.similarity !== undefined),
    'no trigram similarity in this mode',
  );
});

t.test('decoys two or more edits away are never returned', async (t) => {
  const found = new Set((await search('plate=AB12CDE&plate_match=one_edit&per_page=100')).data.map((d) => d.plate_number));
  for (const decoy of ['BA12CDE', 'AB12CXY', 'XAB12CD', 'AB2CD', 'KB12CXE', 'ZZ99ZZZ']) t.notOk(found.has(decoy), decoy);
  // The decoys are in the index: searched for themselves, they are found.
  t.same(
    (await search('plate=BA12CDE&plate_match=one_edit')).data.map((d) => d.plate_number),
    ['BA12CDE'],
    'a transposed query finds only its own plate',
  );
});

t.test('filters and pages apply to one-edit results', async (t) => {
  const first = await search('plate=AB12CDE&plate_match=one_edit&per_page=2');
  t.same(
    first.data.map((d) => d.plate_number),
    ['AB12CDE', 'A812CDE'],
  );
  const second = await search('plate=AB12CDE&plate_match=one_edit&per_page=2&page=2');
  t.same(
    second.data.map((d) => d.plate_number),
    ['AB12CXE', 'AB12CDEK'],
  );
  const since = encodeURIComponent(new Date(base - 25 * 60_000).toISOString());
  t.same(
    (await search(`plate=AB12CDE&plate_match=one_edit&start_date=${since}`)).data.map((d) => d.plate_number),
    ['AB12CXE', 'AB12CDEK', 'AB1CDE'],
  );
  t.same((await search('plate=QQQQ9999&plate_match=one_edit')).data, [], 'nothing near');
});

t.test('plate_fuzzy keeps its meaning; plate_match=fuzzy is the same search', async (t) => {
  const a = await search('plate=AB12CDE&plate_fuzzy=true');
  const b = await search('plate=AB12CDE&plate_match=fuzzy');
  t.same(b.data, a.data);
  t.notOk(
    a.data.some((d) => d.match !== undefined),
    'fuzzy results carry no one-edit match',
  );
  t.notOk(
    a.data.some((d) => ['AB12CXE', 'AB1CDE', 'AB123CDE'].includes(d.plate_number)),
    'the trigram rule misses these single edits (similarity 0.6 or less): why one_edit exists',
  );
});

t.test('bad values are a 400', async (t) => {
  t.equal(await status('plate=AB12CDE&plate_match=two_edit'), 400, 'unknown mode');
  t.equal(await status('plate_match=one_edit'), 400, 'no plate');
  t.equal(await status('plate=AB1*&plate_match=one_edit'), 400, 'a pattern');
  t.equal(await status('plate=AB1&plate_match=one_edit'), 400, 'under 4 characters');
  t.equal(await status('plate=AB12CDE&plate_match=one_edit&plate_fuzzy=true'), 400, 'contradicting plate_fuzzy');
  t.equal(await status('plate=AB12CDE&plate_match=one_edit&plate_match=fuzzy'), 400, 'given twice');
  t.equal(await status('plate=AB12CDE&plate_match=one_edit&plate_fuzzy=false'), 200, 'plate_fuzzy=false agrees');
  const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=AB12CDE&plate_match=one_edit`);
  t.equal(res.status, 400, 'a purpose is still required');
});

t.test('each distinct plate gets its keys once, written by the key builder after commit', async (t) => {
  const [none] = await ctx.database.sql<{ n: number }>(`SELECT count(*)::int AS n FROM plate_edit_keys`);
  t.equal(none?.n, 0, 'ingest wrote none: the searches above found the plates in the reads not keyed yet');
  await createKeyBuilder({ db: ctx.database, clock: ctx.clock, log: createLog('silent') }).drain();
  const [row] = await ctx.database.sql<{ n: number }>(`SELECT count(*)::int AS n FROM plate_edit_keys WHERE plate_normalized = 'AB12C0E'`);
  t.equal(row?.n, 8, 'the key and its 7 deletions');
  const page = await search('plate=AB12CDE&plate_match=one_edit');
  t.same(
    page.data.map((d) => d.plate_number),
    ['AB12CDE', 'A812CDE', 'AB12CXE', 'AB12CDEK', 'AB1CDE', 'AB123CDE', 'AB12CXE'],
    'the keys find what the reads not keyed yet did, each once',
  );
  t.equal(page.meta.total, 7);
});
