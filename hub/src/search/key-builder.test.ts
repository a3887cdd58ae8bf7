/**
 * Search keys built after commit (docs/search.md "Keys built after commit"), on PostgreSQL or
 * PGlite as DATABASE_URL says. Reads come in through batch ingest with no key builder
 * running: every search mode finds each one at once, through the plain indexes. A builder
 * killed mid-page (its transaction aborted after writing keys) leaves nothing behind; a new
 * one keys every read exactly once, and the searches then find each read once, keyed and
 * not-yet-keyed reads mixed.
 */
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { confusionKey } from '@alpr/shared/detection/ocr';
import { deletionNeighbourhood } from '@alpr/shared/detection/one-edit';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';
import { createLog } from '../platform/log.ts';
import { createKeyBuilder } from './key-builder-worker.ts';
import { plateTrigrams } from './trigram-postings.ts';
import { keyCursor, keyLag } from '../db/unkeyed-reads.ts';
import { SEARCH_KEYS } from '../health/kinds.ts';
import { searchKeysHealth } from '../health/search-keys.ts';

const ctx = await adminTestContext(t);
const db = ctx.deps.db;
const viewer = await ctx.session('viewer');
const REASON = 'purpose=stolen_vehicle&reason=case%202026-149';
const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'North gate', latitude: 51.5, longitude: 0.1 });
const gate = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: 'hw-north' }, '192.0.2.9');
const base = ctx.clock.now().getTime();

// Plates without the letters OCR normalization folds (O, Q, D, I, L, S), so each is stored as sent.
const PLATES = ['XK47ZTB', 'MN83RWV', 'JX52HPA'];

async function upload(minutesAgo: number): Promise<void> {
  await uploadBatch(
    ctx.app,
    gate.api_key,
    PLATES.map((text, i) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(base - (minutesAgo + i) * 60_000).toISOString() }),
      plateCrop: jpegLike(300),
    })),
  );
}

type Page = { data: Array<{ plate_number: string }>; meta: { total: number } };
async function search(query: string): Promise<Page> {
  const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?${query}&${REASON}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

/** Every mode, for one plate: what it asks and the plate it must find. */
function modes(plate: string): Array<[mode: string, query: string]> {
  const misread = `${plate.slice(0, 4)}Y${plate.slice(5)}`; // one substitution (Y is in no plate here)
  return [
    ['exact', `plate=${plate}`],
    ['prefix', `plate=${plate.slice(0, 3)}*`],
    ['suffix', `plate=*${plate.slice(-3)}`],
    ['contains', `plate=*${plate.slice(2, 5)}*`],
    ['fuzzy', `plate=${plate}&plate_fuzzy=true`],
    ['one edit', `plate=${misread}&plate_match=one_edit`],
  ];
}

/** Each plate found by each mode, `sightings` times, and nothing else. */
async function everyModeFinds(t: Test, sightings: number): Promise<void> {
  for (const plate of PLATES) {
    for (const [mode, query] of modes(plate)) {
      const page = await search(query);
      const plates = page.data.map((r) => r.plate_number);
      t.same(plates, Array(sightings).fill(plate), `${mode} (${query}) finds ${plate} ${sightings} time(s)`);
      t.equal(page.meta.total, sightings, `${mode} (${query}) counts ${sightings}`);
    }
  }
}

async function keyCounts(): Promise<{ postings: Array<{ id: string; n: number; want: number }>; editKeys: Map<string, number> }> {
  const postings = await db.sql<{ id: string; plate: string; n: number }>(
    `SELECT d.id::text AS id, d.plate_normalized AS plate, (SELECT count(*)::int FROM detection_trigrams t WHERE t.id = d.id) AS n FROM detections d ORDER BY d.id`,
  );
  const keys = await db.sql<{ plate: string; n: number }>(`SELECT plate_normalized AS plate, count(*)::int AS n FROM plate_edit_keys GROUP BY 1`);
  return {
    postings: postings.map((r) => ({ id: r.id, n: Number(r.n), want: plateTrigrams(r.plate).length })),
    editKeys: new Map(keys.map((r) => [r.plate, Number(r.n)])),
  };
}

const quiet = createLog('silent');

t.test('with the builder stopped, every mode finds each read as soon as its batch is acknowledged', async (t) => {
  await upload(60);
  const counts = await keyCounts();
  t.equal(counts.postings.length, PLATES.length, 'the reads are stored');
  t.ok(
    counts.postings.every((p) => p.n === 0),
    'ingest wrote no trigram postings',
  );
  t.equal(counts.editKeys.size, 0, 'ingest wrote no one-edit keys');
  await everyModeFinds(t, 1);
  const health = (await (await send(ctx, null, 'GET', '/healthz')).json()) as { search_keys: { lag_reads: number; lag_seconds: number; behind: boolean } };
  t.equal(health.search_keys.lag_reads, PLATES.length, '/healthz counts the reads waiting for their keys');
  t.ok(health.search_keys.lag_seconds >= 0 && !health.search_keys.behind, 'and how long the oldest waited, under the threshold');
});

t.test('the lag is behind past the documented minute', async (t) => {
  t.same(searchKeysHealth({ reads: 10, seconds: SEARCH_KEYS.lagAlertSeconds }), { lag_reads: 10, lag_seconds: SEARCH_KEYS.lagAlertSeconds, behind: false });
  t.same(searchKeysHealth({ reads: 10, seconds: SEARCH_KEYS.lagAlertSeconds + 0.5 }), {
    lag_reads: 10,
    lag_seconds: SEARCH_KEYS.lagAlertSeconds + 0.5,
    behind: true,
  });
  const [row] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM detections`);
  const lag = await keyLag(db, new Date(Date.now() + 3_600_000));
  t.equal(lag.reads, Number(row?.n), 'every read waits while no builder runs');
  t.ok(lag.seconds >= 3_599, 'an hour later the oldest has waited an hour');
});

t.test('a builder killed mid-page leaves nothing; a new one keys every read exactly once', async (t) => {
  const before = await keyCursor(db);
  let aborted = 0;
  const doomed = createKeyBuilder(
    { db, clock: ctx.clock, log: quiet },
    {
      beforeCursor: async (tx) => {
        // The page's keys are written in this transaction by now: the kill lands mid-page.
        const [written] = await tx.sql<{ n: number }>(`SELECT count(*)::int AS n FROM detection_trigrams`);
        t.ok(Number(written?.n) > 0, 'the page had written its postings when it was killed');
        aborted += 1;
        throw new Error('killed mid-page');
      },
    },
  );
  await t.rejects(doomed.runOnce(), /killed mid-page/);
  t.equal(aborted, 1);
  t.equal(await keyCursor(db), before, 'the cursor did not move');
  const afterKill = await keyCounts();
  t.ok(
    afterKill.postings.every((p) => p.n === 0),
    'no posting survived the kill',
  );
  t.equal(afterKill.editKeys.size, 0, 'no one-edit key survived the kill');
  await everyModeFinds(t, 1);

  const builder = createKeyBuilder({ db, clock: ctx.clock, log: quiet }, { pageSize: 2 });
  t.equal(await builder.drain(), PLATES.length, 'the restarted builder keys every read, two a page');
  t.equal(await builder.drain(), 0, 'and a second run finds nothing left');
  const keyed = await keyCounts();
  for (const p of keyed.postings) t.equal(p.n, p.want, `read ${p.id}: each trigram posted once`);
  for (const plate of PLATES) t.equal(keyed.editKeys.get(plate), new Set(deletionNeighbourhood(confusionKey(plate))).size, `${plate}: its one-edit keys once`);
  const [maxId] = await db.sql<{ id: string }>(`SELECT max(id)::text AS id FROM detections`);
  t.equal(await keyCursor(db), maxId?.id, 'the cursor stands at the last read');
  await everyModeFinds(t, 1);
});

t.test('keyed and not-yet-keyed reads together are each found once', async (t) => {
  await upload(30); // the same plates again, not keyed
  await everyModeFinds(t, 2);
  const builder = createKeyBuilder({ db, clock: ctx.clock, log: quiet });
  t.equal(await builder.drain(), PLATES.length);
  const keyed = await keyCounts();
  for (const p of keyed.postings) t.equal(p.n, p.want, `read ${p.id}: each trigram posted once`);
  await everyModeFinds(t, 2);
});

t.test('a cursor moved back by hand: the pages are built again, and no key is written twice', async (t) => {
  const at = await keyCursor(db);
  await db.sql(`UPDATE search_key_cursor SET last_pk = 0 WHERE id`);
  // The builder's plain inserts meet the keys already there; each page then tries again
  // skipping them (key-builder.ts buildKeyPage).
  const builder = createKeyBuilder({ db, clock: ctx.clock, log: quiet }, { pageSize: 2 });
  t.equal(await builder.drain(), 2 * PLATES.length, 'every read went through the builder again');
  t.equal(await keyCursor(db), at, 'the cursor is back where it stood');
  const keyed = await keyCounts();
  for (const p of keyed.postings) t.equal(p.n, p.want, `read ${p.id}: each trigram posted once`);
  for (const plate of PLATES) t.equal(keyed.editKeys.get(plate), new Set(deletionNeighbourhood(confusionKey(plate))).size, `${plate}: its one-edit keys once`);
  await everyModeFinds(t, 2);
});

t.test('a read whose transaction commits late is waited for, never skipped (PostgreSQL)', async (t) => {
  const url = ctx.database.url;
  if (db.kind !== 'postgres' || !url) {
    t.comment('PGlite has one connection: no transaction can stay open beside the builder');
    return;
  }
  const other = postgres(url, { max: 1, onnotice: () => undefined });
  t.teardown(() => other.end());
  const reserved = await other.reserve();
  // A writer that drew its id first (as a batch does) and commits after later batches.
  await reserved`BEGIN`;
  await reserved`SELECT pg_current_xact_id()`;
  const [{ id } = { id: '' }] = await reserved<{ id: string }[]>`SELECT nextval('detections_id_seq')::text AS id`;
  await upload(10); // later ids, committed first
  const builder = createKeyBuilder({ db, clock: ctx.clock, log: quiet });
  const pass = await builder.runOnce();
  t.equal(pass.settled, false, 'the horizon waits for the open writer');
  t.ok(BigInt(await keyCursor(db)) < BigInt(id), 'the cursor stays below its id');
  await reserved`
    INSERT INTO detections (id, collector_id, camera_id, detection_id, plate_number, plate_normalized, confidence, captured_at, direction, chain_seq, prev_hash, record_hash)
    SELECT ${id}::bigint, collector_id, camera_id, 'late-commit', 'LT47ZKV', 'LT47ZKV', confidence, captured_at, direction, chain_seq + 100000, prev_hash, record_hash
      FROM detections ORDER BY id LIMIT 1`;
  await reserved`COMMIT`;
  reserved.release();
  await builder.drain();
  const [late] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM detection_trigrams WHERE id = $1::bigint`, [id]);
  t.equal(Number(late?.n), plateTrigrams('LT47ZKV').length, 'the late read got its postings');
  const keyed = await keyCounts();
  for (const p of keyed.postings) t.equal(p.n, p.want, `read ${p.id}: each trigram posted once`);
  t.equal((await search('plate=*7ZK*')).meta.total, 1, 'and a contains search finds it once');
});
