import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { verifyChain } from '../db/chain.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from '../db/fixtures.test-helper.ts';
import { testDatabase, type TestDatabase } from '../db/database.test-helper.ts';
import { readdir, readFile } from 'node:fs/promises';
import { openImageStore, SEGMENTS_FOLDER, sha256Hex, type ImageStore } from '../images/image-store.ts';
import { indexImages } from '../images/locations.ts';
import { postingsAgainstDetections } from '../search/trigram-postings.test-helper.ts';
import { createKeyBuilder } from '../search/key-builder-worker.ts';
import { mergeBlocks, sealFresh } from '../search/posting-blocks.ts';
import { createLog } from '../platform/log.ts';
import { DEFAULT_HORIZONS } from '../platform/config/retention-horizons.ts';
import { runRetention, type RetentionReport } from './run.ts';

/*
 * Retention against a real database and a real image store, with data crafted so every
 * answer is known: two collectors' chains eight years old in places, a legal hold in the
 * middle of one chain, an image shared with a young detection, a late-arriving old read,
 * alerts, audit rows and an ended hold record past its years.
 */

const now = new Date();
const year = now.getUTCFullYear();
const old = (month: number, day: number): Date => new Date(Date.UTC(year - 8, month, day, 12));
const young = new Date(now.getTime() - 86_400_000);
const clock = { now: () => new Date() };

interface World {
  db: TestDatabase;
  store: ImageStore;
  dir: string;
  a: string;
  b: string;
  ids: Record<string, string>;
  img: Record<string, string>;
}

const imageBytes = (label: string): Buffer => Buffer.from(`\xff\xd8 image ${label}.`);

/** As an upload stores them: appended to a segment, indexed in a transaction. */
async function storeImages(db: TestDatabase, store: ImageStore, labels: readonly string[]): Promise<Record<string, string>> {
  const entries = labels.map((label) => ({ label, bytes: imageBytes(label), sha256: sha256Hex(imageBytes(label)) }));
  const locations = await store.putBatch(entries);
  await db.transaction((tx) => indexImages(tx, new Date(), locations));
  return Object.fromEntries(entries.map((e) => [e.label, e.sha256]));
}

/**
 * Waits for the store's idle timer to seal every segment holding images (compaction touches
 * sealed ones only; the writer's spare, created ahead and still empty, stays open).
 */
async function allSealed(db: TestDatabase): Promise<void> {
  const open = 'image_segments s WHERE s.sealed_at IS NULL AND EXISTS (SELECT 1 FROM image_locations l WHERE l.segment = s.id)';
  while ((await count(db, open)) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Labels of the test images whose bytes are anywhere in the segment files. */
async function labelsOnDisk(dir: string, labels: readonly string[]): Promise<string[]> {
  const files = await Promise.all((await readdir(join(dir, SEGMENTS_FOLDER))).map((name) => readFile(join(dir, SEGMENTS_FOLDER, name))));
  return labels.filter((label) => files.some((bytes) => bytes.includes(imageBytes(label))));
}

async function build(t: Test): Promise<World> {
  const db = await testDatabase(t);
  const dir = await mkdtemp(join(tmpdir(), 'retention-'));
  // Sealed after 20 ms idle and compactable at once: the clock's stand-ins for 10 minutes and an hour.
  const store = openImageStore(dir, { db, idleSealMs: 20, graceMs: 0 });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  // January, February and March eight years ago get their own monthly partitions.
  await db.sql('SELECT ensure_detection_partitions($1, 3)', [old(0, 1)]);
  const img = await storeImages(db, store, ['a1full', 'a1crop', 'shared', 'held', 'a6', 'a7', 'a10', 'young', 'b1', 'b2', 'b3']);
  await allSealed(db);

  const a = await insertCollector(db, 'Site A');
  const b = await insertCollector(db, 'Site B');
  const ids: Record<string, string> = {};
  const append = async (collector: string, name: string, capturedAt: Date, full: string | null = null, crop: string | null = null): Promise<void> => {
    const [id] = await appendChainedDetections(db, collector, [sampleDetection(collector, { capturedAt, fullImageHash: full, cropImageHash: crop })]);
    ids[name] = id!;
  };
  // Collector A: seq 1-7 old (January), 5 held, 8-9 young, 10 old but arriving last.
  await append(a, 'a1', old(0, 3), img['a1full'], img['a1crop']);
  await append(a, 'a2', old(0, 4), img['shared']);
  await append(a, 'a3', old(0, 5));
  await append(a, 'a4', old(0, 6));
  await append(a, 'a5', old(0, 7), img['held']);
  await append(a, 'a6', old(0, 8), img['a6']);
  await append(a, 'a7', old(0, 9), img['a7']);
  await append(a, 'a8', young, img['shared']);
  await append(a, 'a9', young, img['young']);
  await append(a, 'a10', old(0, 10), img['a10']);
  // Collector B: all in March, alone there.
  await append(b, 'b1', old(2, 3), img['b1']);
  await append(b, 'b2', old(2, 4), img['b2']);
  await append(b, 'b3', old(2, 5), img['b3']);

  const [user] = await db.sql<{ id: string }>(`INSERT INTO users (email, password_hash, role) VALUES ('ret@example.test', 'x', 'admin') RETURNING id`);
  const [list] = await db.sql<{ id: string }>(`INSERT INTO watchlists (created_by, name) VALUES ($1, 'List') RETURNING id`, [user!.id]);
  const alert = (detection: string, createdAt: Date): Promise<unknown> =>
    db.sql('INSERT INTO alerts (detection_id, watchlist_id, created_at) VALUES ($1, $2, $3)', [ids[detection], list!.id, createdAt]);
  await alert('a1', now); // goes with its detection
  await alert('a5', old(0, 7)); // old, but its detection is held: stays
  await alert('a6', old(0, 8)); // old: goes although its detection stays (chain behind the hold)
  await alert('a9', young);
  await db.sql(`INSERT INTO alert_queue (detection_id, status) VALUES ($1, 'complete')`, [ids['a2']]);

  await db.sql(`INSERT INTO legal_holds (detection_id, case_id, reason, created_at) VALUES ($1, 'CASE-1', 'investigation', $2)`, [ids['a5'], old(1, 1)]);
  // A hold on a7 released eight years ago: its record is past its years and goes.
  await db.sql(`INSERT INTO legal_holds (detection_id, case_id, reason, created_at, released_at) VALUES ($1, 'CASE-0', 'old case', $2, $3)`, [
    ids['a7'],
    old(0, 9),
    old(0, 20),
  ]);
  await db.sql(`INSERT INTO audit_log (at, action) VALUES ($1, 'old.thing'), ($2, 'recent.thing')`, [old(0, 1), young]);
  return { db, store, dir, a, b, ids, img };
}

const count = async (db: TestDatabase, sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params))[0]?.n);
const partitions = async (db: TestDatabase): Promise<string[]> =>
  (
    await db.sql<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'detections'::regclass ORDER BY 1`,
    )
  ).map((r) => r.name);
const month = (m: number): string => `detections_y${year - 8}m${String(m).padStart(2, '0')}`;

function expectFirstRun(t: Test, w: World, report: RetentionReport): void {
  t.notOk(report.skipped);
  t.same(
    report.detections.chains.map((c) => [c.collectorId, c.fromSeq, c.uptoSeq, c.removed]).sort(),
    [
      [w.a, 1, 4, 4],
      [w.b, 1, 3, 3],
    ].sort(),
    'A is cut up to the hold (1..4), B whole (1..3)',
  );
  t.equal(report.detections.removed, 7);
  t.same(
    report.detections.partitionsDropped,
    [
      { name: month(2), rows: 0 },
      { name: month(3), rows: 3 },
    ],
    'empty February and B-only March dropped whole; January keeps the held row',
  );
  t.same(
    { removed: report.images.removed + report.images.missing, inUse: report.images.keptInUse, held: report.images.keptHeld },
    { removed: 8, inUse: 1, held: 1 },
    'old images go; the one a young detection shares and the held one stay',
  );
  t.equal(report.holdsRemoved, 1, 'the hold record released 8 years ago');
  t.equal(report.alertsRemoved, 1, 'the old alert of an unheld detection');
  t.equal(report.auditRemoved, 1);
}

t.test('retention: dry run, run, holds, images, chain checkpoints', async (t) => {
  const w = await build(t);
  const { db, store, a, b, ids, img } = w;
  t.ok(b);
  const deps = { db, images: store, clock };
  const detectionsBefore = await count(db, 'detections');
  // The postings are built after commit (docs/search.md "Keys built after commit"): built here
  // before retention runs, as the hub's key builder would have.
  await createKeyBuilder({ db, clock, log: createLog('silent') }).drain();
  // And sealed in blocks (docs/search.md "Postings sealed in blocks"), small ones merged into
  // larger: retention must take a read's postings out of the blocks that hold them.
  await sealFresh(db, clock.now(), { cap: 2, sealStep: 3 });
  await mergeBlocks(db, { fanout: 2, cap: 3 });
  const postingsBefore = await postingsAgainstDetections(db);
  t.same([postingsBefore.stale, postingsBefore.missing, postingsBefore.badBlocks], [0, 0, 0], 'every stored read has its trigram postings, and only those');
  t.ok(postingsBefore.stored > detectionsBefore, 'several per read');
  t.equal(postingsBefore.sealed, postingsBefore.stored, 'all of them sealed');
  t.ok((await count(db, 'trigram_blocks WHERE level > 0')) > 0, 'some blocks merged');

  await t.test('a dry run reports exactly what the run will do and changes nothing', async (t) => {
    const report = await runRetention(deps, DEFAULT_HORIZONS, { dryRun: true });
    t.equal(report.dryRun, true);
    expectFirstRun(t, w, report);
    t.equal(await count(db, 'detections'), detectionsBefore);
    t.equal(await count(db, 'chain_checkpoints'), 0);
    t.equal(await count(db, 'removed_images'), 0);
    t.equal(await count(db, 'retention_progress'), 0);
    t.equal(await count(db, 'legal_holds'), 2);
    t.equal(await count(db, `audit_log WHERE action = 'retention.run'`), 0);
    t.ok((await partitions(db)).includes(month(3)));
    t.ok(await store.get(img['a1full']!), 'files untouched');
    t.notOk(report.compaction, 'no compaction in a dry run');
    t.equal((await labelsOnDisk(w.dir, Object.keys(img))).length, 11, 'every image still on disk');
    t.same(await verifyChain(db, a), { ok: true, count: 10 });
  });

  await t.test('the run removes what the dry run said', async (t) => {
    const report = await runRetention(deps, DEFAULT_HORIZONS);
    expectFirstRun(t, w, report);
    t.equal(await count(db, 'detections'), detectionsBefore - 7);
    t.same(
      (await db.sql<{ id: string }>('SELECT id::text AS id FROM detections ORDER BY detections.id')).map((r) => r.id),
      ['a5', 'a6', 'a7', 'a8', 'a9', 'a10'].map((n) => ids[n]),
      'the held read, the chain behind it, the young reads and the late old read remain',
    );
    t.equal(await count(db, 'detection_keys'), 6, 'keys went with their detections');
    const postings = await postingsAgainstDetections(db);
    t.same(
      [postings.stored, postings.stale, postings.missing, postings.badBlocks],
      [await count(db, 'detections d, unnest(alpr_plate_trigrams(d.plate_normalized))'), 0, 0, 0],
      'the trigram postings of the dropped months and of the rows removed one by one went too, out of their blocks',
    );
    const parts = await partitions(db);
    t.notOk(parts.includes(month(2)));
    t.notOk(parts.includes(month(3)));
    t.ok(parts.includes(month(1)));

    t.same(await verifyChain(db, a), { ok: true, count: 6, from: { chain_seq: 4, record_hash: (await checkpoint(db, a)).record_hash } });
    t.same(await verifyChain(db, b), { ok: true, count: 0, from: { chain_seq: 3, record_hash: (await checkpoint(db, b)).record_hash } });

    for (const gone of ['a1full', 'a1crop', 'a6', 'a7', 'a10', 'b1', 'b2', 'b3']) t.equal(await store.get(img[gone]!), undefined, `${gone} removed`);
    for (const kept of ['shared', 'held', 'young']) t.ok(await store.get(img[kept]!), `${kept} kept`);
    t.equal(await count(db, 'removed_images'), 8);
    t.match(report.compaction, { deleted: 0, rewritten: 1, moved: 3, damaged: [] }, 'the one segment rewritten with its three live images');
    t.same((await labelsOnDisk(w.dir, Object.keys(img))).sort(), ['held', 'shared', 'young'], "no removed image's bytes are left in any segment");
    const files = await readdir(join(w.dir, SEGMENTS_FOLDER));
    const written = await Promise.all(files.map(async (name) => (await readFile(join(w.dir, SEGMENTS_FOLDER, name))).length > 0));
    t.equal(written.filter(Boolean).length, 1, "the old segment file is gone; the new one holds the live images (beside the writer's empty spare)");

    t.same(
      (await db.sql<{ id: string }>('SELECT detection_id::text AS id FROM alerts ORDER BY alerts.id')).map((r) => r.id),
      [ids['a5'], ids['a9']],
      'the held detection keeps its alert; a1 took its own along',
    );
    t.equal(await count(db, 'alert_queue'), 0);
    t.same(
      (await db.sql<{ case_id: string }>('SELECT case_id FROM legal_holds')).map((r) => r.case_id),
      ['CASE-1'],
    );
    t.same(
      (await db.sql<{ action: string }>('SELECT action FROM audit_log ORDER BY audit_log.id')).map((r) => r.action),
      ['recent.thing', 'retention.run'],
    );
  });

  await t.test('a second run finds nothing more', async (t) => {
    const report = await runRetention(deps, DEFAULT_HORIZONS);
    t.same(report.detections.chains, []);
    t.same(report.detections.partitionsDropped, []);
    t.equal(report.images.checked, 0);
    t.equal(report.holdsRemoved + report.alertsRemoved + report.auditRemoved, 0);
  });

  await t.test('a released hold keeps its detection while its record lasts, then the chain moves on', async (t) => {
    await db.sql(`UPDATE legal_holds SET released_at = now() WHERE case_id = 'CASE-1'`);
    let report = await runRetention(deps, DEFAULT_HORIZONS);
    t.same(report.detections.chains, [], 'a hold released today still keeps a5');
    t.ok(await store.get(img['held']!));
    // Seven years later (the record's end moved back instead of the clock forward).
    await db.sql(`UPDATE legal_holds SET released_at = $1 WHERE case_id = 'CASE-1'`, [old(1, 1)]);
    report = await runRetention(deps, DEFAULT_HORIZONS);
    t.equal(report.holdsRemoved, 1);
    t.same(
      report.detections.chains.map((c) => [c.collectorId, c.fromSeq, c.uptoSeq]),
      [[a, 5, 7]],
      'up to the first young read',
    );
    t.equal(report.images.removed, 1, 'the held image, freed with its hold record');
    t.equal(await store.get(img['held']!), undefined);
    t.ok(await store.get(img['shared']!), 'still shared with a young read');
    t.match(report.compaction, { rewritten: 1, moved: 2 }, 'the compacted segment compacted again');
    t.same((await labelsOnDisk(w.dir, Object.keys(img))).sort(), ['shared', 'young'], 'the held image survived one compaction and left with the next');
    t.equal(report.alertsRemoved, 1, "a5's old alert, no longer kept by a hold");
    t.same(
      (await db.sql<{ id: string }>('SELECT detection_id::text AS id FROM alerts')).map((r) => r.id),
      [ids['a9']],
    );
    t.same(await verifyChain(db, a), { ok: true, count: 3, from: { chain_seq: 7, record_hash: (await checkpoint(db, a)).record_hash } });
    t.same(
      (
        await db.sql<{ seq: string }>('SELECT chain_seq::text AS seq FROM chain_checkpoints WHERE collector_id = $1 ORDER BY chain_checkpoints.chain_seq', [a])
      ).map((r) => r.seq),
      ['4', '7'],
    );
    t.same(
      (await runRetention(deps, DEFAULT_HORIZONS)).detections.chains.map((c) => c.collectorId),
      [],
      'B has nothing left to cut',
    );
  });

  await t.test('a record left before a checkpoint is reported as a break', async (t) => {
    // A checkpoint forged past live rows (the owner can; the hub's role cannot): the verifier
    // must not skip what is still there.
    await db.sql(`INSERT INTO chain_checkpoints (collector_id, chain_seq, record_hash, removed, cutoff) VALUES ($1, 9, $2, 2, now())`, [a, 'f'.repeat(64)]);
    const verdict = await verifyChain(db, a);
    t.equal(verdict.ok, false);
    if (!verdict.ok) t.match(verdict.brokenAt, { chain_seq: 8, reason: 'sequence' });
  });
});

async function checkpoint(db: TestDatabase, collector: string): Promise<{ record_hash: string }> {
  const [row] = await db.sql<{ record_hash: string }>(
    'SELECT record_hash FROM chain_checkpoints WHERE collector_id = $1 ORDER BY chain_checkpoints.chain_seq DESC LIMIT 1',
    [collector],
  );
  return row!;
}

t.test('only retention deletes, and never anything under a year old', async (t) => {
  const db = await testDatabase(t);
  const collector = await insertCollector(db);
  await appendChainedDetections(db, collector, [sampleDetection(collector, { capturedAt: young })]);

  await t.rejects(db.sql(`SELECT * FROM retention_remove_detections(now() - interval '30 days')`), /kept at least a year/);
  await t.rejects(db.sql(`SELECT retention_remove_audit(now())`), /kept at least a year/);
  await t.rejects(db.sql('DELETE FROM detections'), /write-once/, 'the owner without the retention flag');
  await t.rejects(db.sql('TRUNCATE chain_checkpoints'), /write-once/);

  await t.test('the application role', async (t) => {
    const asApp = (sql: string): Promise<unknown> =>
      db.transaction(async (tx) => {
        await tx.sql('SET LOCAL ROLE alpr_app');
        await tx.sql(`SELECT set_config('alpr.retention', 'on', true)`);
        return tx.sql(sql);
      });
    await t.rejects(asApp('DELETE FROM detections'), /permission denied/, 'setting the flag gains it nothing');
    await t.rejects(asApp('DELETE FROM audit_log'), /permission denied/);
    await t.rejects(
      asApp(`INSERT INTO chain_checkpoints (collector_id, chain_seq, record_hash, removed, cutoff) VALUES ('${collector}', 1, '${'a'.repeat(64)}', 1, now())`),
      /permission denied/,
      'no forged checkpoints',
    );
    await t.rejects(asApp(`SELECT * FROM retention_remove_detections(now() - interval '30 days')`), /kept at least a year/);
    const result = (await asApp(`SELECT * FROM retention_remove_detections(now() - interval '8 years')`)) as unknown[];
    t.same(result, [], 'it may ask for retention, which removes nothing young');
  });
  t.equal(await count(db, 'detections'), 1);
});

t.test('a second run while one holds the lock is skipped', { skip: process.env['DATABASE_URL'] ? false : 'needs two connections (PostgreSQL)' }, async (t) => {
  const db = await testDatabase(t, { maxConnections: 3 });
  const dir = await mkdtemp(join(tmpdir(), 'retention-lock-'));
  const store = openImageStore(dir, { db });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = db.transaction(async (tx) => {
    await tx.sql(`SELECT pg_advisory_xact_lock(hashtext('alpr_retention'))`);
    locked();
    await held;
  });
  await isLocked;
  const report = await runRetention({ db, images: store, clock }, DEFAULT_HORIZONS);
  release();
  await holder;
  t.equal(report.skipped, 'another retention run is in progress');
  t.ok(report.compaction, 'its own image folder is compacted all the same');
  t.notOk((await runRetention({ db, images: store, clock }, DEFAULT_HORIZONS)).skipped);
});
