import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import t, { type Test } from 'tap';
import nacl from 'tweetnacl';
import { verifyChain } from '../db/chain.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from '../db/fixtures.test-helper.ts';
import { testDatabase, type TestDatabase } from '../db/database.test-helper.ts';
import { buildExport, exportRows } from '../evidence/build.ts';
import { verifyExport } from '../evidence/manifest.ts';
import { readZipFiles } from '../evidence/read-zip.ts';
import { openImageStore, sha256Hex, type ImageStore } from '../images/image-store.ts';
import { indexImages } from '../images/locations.ts';
import { DEFAULT_HORIZONS } from '../platform/config/retention-horizons.ts';
import { defaultHorizonsFor, describeTiers, PRESETS, RETENTION_PRESETS, withPreset } from '../platform/config/retention-presets.ts';
import { runRetention } from './run.ts';
import { postingsAgainstDetections } from '../search/trigram-postings.test-helper.ts';
import { createKeyBuilder } from '../search/key-builder-worker.ts';
import { createLog } from '../platform/log.ts';

/*
 * The non-hit tier (docs/retention.md "Tiers and presets"; ADR 0007) on a hub whose every
 * answer is known: collector A's chain mixes reads that matched nothing with a hit, a held
 * read, a read still waiting for matching and a young read; B matched nothing at all; C is
 * eight years old, so the non-hit tier and the 7-year prefix cut meet in it. The database
 * refuses a non-hit cutoff less than an hour before its own now(), so time moves by setting
 * the injected clock from 20 days before now (nothing is 21 days old yet) to now.
 */

const DAY = 86_400_000;
const realNow = Date.now();
const daysAgo = (d: number): Date => new Date(realNow - d * DAY);
const at = (d: Date): { now: () => Date } => ({ now: () => d });
const imageBytes = (label: string): Buffer => Buffer.from(`\xff\xd8 tier image ${label}.`);

interface World {
  db: TestDatabase;
  store: ImageStore;
  a: string;
  b: string;
  c: string;
  ids: Record<string, string>;
  img: Record<string, string>;
}

async function build(t: Test): Promise<World> {
  const db = await testDatabase(t);
  const dir = await mkdtemp(join(tmpdir(), 'retention-tiers-'));
  const store = openImageStore(dir, { db, idleSealMs: 20, graceMs: 0 });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const entries = ['n1', 'hit', 'held', 'young'].map((label) => ({ label, bytes: imageBytes(label), sha256: sha256Hex(imageBytes(label)) }));
  await db.transaction(async (tx) => indexImages(tx, new Date(), await store.putBatch(entries)));
  const img = Object.fromEntries(entries.map((e) => [e.label, e.sha256]));
  await db.sql('SELECT ensure_detection_partitions($1, 1)', [daysAgo(8 * 365)]);

  const a = await insertCollector(db, 'Site A');
  const b = await insertCollector(db, 'Site B');
  const c = await insertCollector(db, 'Site C');
  const ids: Record<string, string> = {};
  const append = async (collector: string, name: string, capturedAt: Date, full: string | null = null, plate = 'NONHIT1'): Promise<void> => {
    const [id] = await appendChainedDetections(db, collector, [
      sampleDetection(collector, { capturedAt, fullImageHash: full, plateNumber: plate, plateNormalized: plate }),
    ]);
    ids[name] = id!;
  };
  const old = daysAgo(30);
  await append(a, 'a1', old, img['n1']);
  await append(a, 'a2', old, img['hit'], 'HIT0001');
  await append(a, 'a3', old, img['hit']); // shares the hit's image: the image stays
  await append(a, 'a4', old, img['held'], 'HELD001');
  await append(a, 'a5', old);
  await append(a, 'a6', daysAgo(2), img['young']);
  await append(a, 'a7', old); // its matching has not finished
  await append(a, 'a8', old); // the head of A's chain
  await append(b, 'b1', old);
  await append(b, 'b2', old);
  await append(c, 'c1', daysAgo(8 * 365));
  await append(c, 'c2', daysAgo(8 * 365), null, 'HELD002');
  await append(c, 'c3', daysAgo(8 * 365));

  const [user] = await db.sql<{ id: string }>(`INSERT INTO users (email, password_hash, role) VALUES ('tiers@example.test', 'x', 'admin') RETURNING id`);
  const [list] = await db.sql<{ id: string }>(`INSERT INTO watchlists (created_by, name) VALUES ($1, 'List') RETURNING id`, [user!.id]);
  await db.sql('INSERT INTO alerts (detection_id, watchlist_id, created_at) VALUES ($1, $2, $3)', [ids['a2'], list!.id, old]);
  await db.sql(`INSERT INTO alert_queue (detection_id, status) VALUES ($1, 'complete'), ($2, 'pending')`, [ids['a1'], ids['a7']]);
  for (const held of ['a4', 'c2']) {
    await db.sql(`INSERT INTO legal_holds (detection_id, case_id, reason) VALUES ($1, 'CASE-7', 'investigation')`, [ids[held]]);
  }
  return { db, store, a, b, c, ids, img };
}

const count = async (db: TestDatabase, sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params))[0]?.n);
const checkpointHash = async (db: TestDatabase, collector: string): Promise<string> =>
  (
    await db.sql<{ h: string }>('SELECT record_hash AS h FROM chain_checkpoints WHERE collector_id = $1 ORDER BY chain_checkpoints.chain_seq DESC LIMIT 1', [
      collector,
    ])
  )[0]!.h;
const tombstoneHash = async (db: TestDatabase, collector: string, seq: number): Promise<string | undefined> =>
  (await db.sql<{ h: string }>('SELECT record_hash AS h FROM chain_tombstones WHERE collector_id = $1 AND chain_seq = $2', [collector, seq]))[0]?.h;

t.test('presets: each sets the non-hit tier only, and says so', async (t) => {
  t.same(RETENTION_PRESETS, ['default', '90d', '21d', '24h']);
  t.same(defaultHorizonsFor('default'), DEFAULT_HORIZONS, 'the default is the single clock: no tier of its own');
  for (const [preset, days] of [
    ['90d', 90],
    ['21d', 21],
    ['24h', 1],
  ] as const) {
    t.same(defaultHorizonsFor(preset), { ...DEFAULT_HORIZONS, nonHitsDays: days }, `${preset}: non-hits ${days} days, the rest unchanged`);
    t.ok(PRESETS[preset].summary.includes('matched nothing'));
  }
  t.equal(withPreset(DEFAULT_HORIZONS, '21d', 5).nonHitsDays, 5, 'an explicit period wins over the preset');
  t.equal(withPreset({ ...DEFAULT_HORIZONS, detectionsDays: 400 }, 'default', 500).nonHitsDays, null, 'past the detections period it is no tier');
  t.same(
    describeTiers(defaultHorizonsFor('24h')).map((r) => r.kept),
    ['24 hours', '7 years', '7 years', 'while a hold record exists; hold records 7 years after the hold ends', '1 year', '7 years'],
  );
});

t.test('the non-hit tier: dry run, run, chain verify, evidence export', async (t) => {
  const w = await build(t);
  const { db, store, a, b, c, ids, img } = w;
  const horizons = defaultHorizonsFor('21d');
  const before = await count(db, 'detections');

  await t.test('nothing is 21 days old yet', async (t) => {
    const report = await runRetention({ db, images: store, clock: at(daysAgo(20)) }, horizons, { dryRun: true });
    t.equal(report.nonHits.removed, 2, "only C's eight-year-old non-hits");
    t.same(
      report.nonHits.chains.map((x) => x.collectorId),
      [c],
    );
  });

  const expectTier = (t: Test, report: Awaited<ReturnType<typeof runRetention>>): void => {
    t.equal(report.nonHits.cutoff, new Date(realNow - 21 * DAY).toISOString());
    t.equal(report.nonHits.removed, 8, 'A: 1, 3, 5, 8; B: 1, 2; C: 1, 3');
    t.same(
      report.nonHits.chains.map((x) => [x.collectorId, x.removed, x.fromSeq, x.uptoSeq]).sort(),
      [
        [a, 4, 1, 8],
        [b, 2, 1, 2],
        [c, 2, 1, 3],
      ].sort(),
    );
    t.same(report.nonHits.kept, { hits: 1, held: 2, matchingUnfinished: 1 }, 'the hit, the two held reads, the read still being matched');
    t.match(report.nonHits.images, { removed: 1, keptInUse: 1, keptHeld: 0 }, "n1 goes; the hit's image, shared with a removed read, stays");
    t.same(
      report.detections.chains.map((x) => [x.collectorId, x.fromSeq, x.uptoSeq, x.removed]).sort(),
      [
        [a, 1, 1, 0],
        [b, 1, 2, 0],
        [c, 1, 1, 0],
      ].sort(),
      "the 7-year prefix cut folds each chain's leading tombstones into a checkpoint, removing no row (C: before its held read)",
    );
    t.equal(report.detections.removed, 0);
    t.equal(report.alertsRemoved, 0);
  };

  await t.test('past 21 days, a dry run reports each tier and changes nothing', async (t) => {
    // The postings are built after commit (docs/search.md "Keys built after commit"): built here
    // before retention runs, as the hub's key builder would have.
    await createKeyBuilder({ db, clock: at(new Date(realNow)), log: createLog('silent') }).drain();
    const report = await runRetention({ db, images: store, clock: at(new Date(realNow)) }, horizons, { dryRun: true });
    expectTier(t, report);
    t.equal(await count(db, 'detections'), before);
    t.equal(await count(db, 'chain_tombstones'), 0);
    t.ok(await store.get(img['n1']!));
    t.same(await verifyChain(db, a), { ok: true, count: 8 });
  });

  await t.test('the run removes the non-hits and keeps the hit, the held and the unmatched', async (t) => {
    const report = await runRetention({ db, images: store, clock: at(new Date(realNow)) }, horizons);
    expectTier(t, report);
    t.same(
      (await db.sql<{ id: string }>('SELECT id::text AS id FROM detections ORDER BY detections.id')).map((r) => r.id),
      ['a2', 'a4', 'a6', 'a7', 'c2'].map((n) => ids[n]),
    );
    t.equal(await count(db, 'detection_keys'), 5);
    const postings = await postingsAgainstDetections(db);
    t.same([postings.stale, postings.missing], [0, 0], "the removed reads' trigram postings went with them, the kept reads' stay");
    t.ok(postings.stored >= 5, `${postings.stored} postings for the 5 kept reads`);
    t.equal(await count(db, 'alert_queue'), 1, "the removed read's finished queue item went; the pending one stays");
    t.equal(await store.get(img['n1']!), undefined, "the non-hit's own image is gone");
    for (const kept of ['hit', 'held', 'young']) t.ok(await store.get(img[kept]!), `${kept} image kept`);
    const columns = (
      await db.sql<{ c: string }>(`SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'chain_tombstones' ORDER BY 1`)
    ).map((r) => r.c);
    t.same(columns, ['chain_seq', 'collector_id', 'cutoff', 'prev_hash', 'record_hash', 'removed_at'], 'a tombstone holds no plate, camera, time or image');
    t.same(
      (await db.sql<{ s: string }>('SELECT chain_seq::text AS s FROM chain_tombstones WHERE collector_id = $1 ORDER BY 1', [a])).map((r) => r.s),
      ['3', '5', '8'],
      "A's tombstone at 1 went with the checkpoint that passed it",
    );
    t.equal(await count(db, 'chain_tombstones'), 4, "A: 3, 5, 8; C: 3; B's two folded into its checkpoint");

    t.same(
      await verifyChain(db, a),
      { ok: true, count: 4, from: { chain_seq: 1, record_hash: await checkpointHash(db, a) }, removed: 3 },
      'A verifies across its holes, including its head',
    );
    t.same(await verifyChain(db, b), { ok: true, count: 0, from: { chain_seq: 2, record_hash: await checkpointHash(db, b) } });
    t.same(await verifyChain(db, c), { ok: true, count: 1, from: { chain_seq: 1, record_hash: await checkpointHash(db, c) }, removed: 1 });
    const [audit] = await db.sql<{ detail: Record<string, unknown> }>(`SELECT detail FROM audit_log WHERE action = 'retention.run'`);
    t.match(audit?.detail, { non_hits_removed: 8, non_hit_images_removed: 1 });
  });

  await t.test('an evidence export of a kept read between two removed ones verifies', async (t) => {
    const rows = await exportRows(db, [ids['a4']!]);
    t.equal(rows[0]?.prev_hash, await tombstoneHash(db, a, 3), "its link names the removed neighbour's hash, kept in the tombstone");
    const keys = nacl.sign.keyPair();
    const zip = await buildExport({
      rows,
      images: store,
      signingKey: { secretKey: keys.secretKey, publicKeyBase64: Buffer.from(keys.publicKey).toString('base64') },
      createdAt: new Date(realNow),
      createdBy: 'tiers@example.test',
      reason: 'test',
      query: { ids: ids['a4']! },
    });
    const dir = await mkdtemp(join(tmpdir(), 'tiers-export-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'export.zip');
    await pipeline(zip, createWriteStream(file));
    const verdict = verifyExport(await readZipFiles(file), keys.publicKey);
    t.same(verdict.problems, []);
    t.equal(verdict.ok, true);
    t.equal(verdict.detections, 1);
  });

  await t.test('the chain goes on after its removed head', async (t) => {
    await appendChainedDetections(db, a, [sampleDetection(a, { capturedAt: new Date(realNow) })]);
    t.same(await verifyChain(db, a), { ok: true, count: 5, from: { chain_seq: 1, record_hash: await checkpointHash(db, a) }, removed: 3 });
    await t.rejects(db.sql(`UPDATE chain_tombstones SET record_hash = $1 WHERE collector_id = $2`, ['e'.repeat(64), a]), /write-once/);
    await t.rejects(db.sql(`DELETE FROM chain_tombstones`), /write-once/, 'the owner without the retention flag');
  });

  await t.test('a second run finds nothing more', async (t) => {
    const report = await runRetention({ db, images: store, clock: at(new Date(realNow)) }, horizons);
    t.equal(report.nonHits.removed, 0);
    t.same(report.detections.chains, []);
  });

  await t.test('a tombstone beside a kept record at the same position is a break', async (t) => {
    // The owner can write one (the hub's role cannot, below): it must not pass unseen.
    await db.sql(`INSERT INTO chain_tombstones (collector_id, chain_seq, prev_hash, record_hash, cutoff) VALUES ($1, 2, $2, $3, now())`, [
      a,
      await checkpointHash(db, a),
      'e'.repeat(64),
    ]);
    const verdict = await verifyChain(db, a);
    t.equal(verdict.ok, false);
    if (!verdict.ok) t.match(verdict.brokenAt, { chain_seq: 2, reason: 'sequence', id: null });
  });
});

t.test('each preset removes the non-hits past its period and keeps the younger ones', async (t) => {
  const db = await testDatabase(t);
  const dir = await mkdtemp(join(tmpdir(), 'retention-presets-'));
  const store = openImageStore(dir, { db });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  await db.sql('SELECT ensure_detection_partitions($1, 6)', [daysAgo(120)]);
  const clock = at(new Date(realNow));
  // Hours past or short of each period: [preset, older than it, younger than it].
  const cases = [
    ['default', 95 * 24, 2],
    ['90d', 91 * 24, 89 * 24],
    ['21d', 22 * 24, 20 * 24],
    ['24h', 25, 23],
  ] as const;
  for (const [preset, olderHours, youngerHours] of cases) {
    const collector = await insertCollector(db, `Preset ${preset}`);
    const [older, younger] = await appendChainedDetections(db, collector, [
      sampleDetection(collector, { capturedAt: new Date(realNow - olderHours * 3_600_000) }),
      sampleDetection(collector, { capturedAt: new Date(realNow - youngerHours * 3_600_000) }),
    ]);
    const dry = await runRetention({ db, images: store, clock }, defaultHorizonsFor(preset), { dryRun: true });
    const report = await runRetention({ db, images: store, clock }, defaultHorizonsFor(preset));
    t.same(dry.nonHits, report.nonHits, `${preset}: the dry run said what the run did`);
    const left = (await db.sql<{ id: string }>('SELECT id::text AS id FROM detections WHERE collector_id = $1 ORDER BY 1', [collector])).map((r) => r.id);
    if (preset === 'default') {
      t.equal(report.nonHits.cutoff, null, 'default: no non-hit tier');
      t.same(left, [older, younger], 'default: a 95-day-old read stays');
    } else {
      t.same(left, [younger], `${preset}: the older read went, the younger stayed`);
    }
    t.match(await verifyChain(db, collector), { ok: true }, `${preset}: the chain verifies`);
  }
});

t.test('the database refuses a non-hit cutoff under an hour, and the hub role cannot forge tombstones', async (t) => {
  const db = await testDatabase(t);
  const collector = await insertCollector(db);
  await appendChainedDetections(db, collector, [sampleDetection(collector, { capturedAt: daysAgo(0.01) })]);
  await t.rejects(db.sql(`SELECT * FROM retention_remove_non_hits(now() - interval '10 minutes', 100)`), /kept at least an hour/);
  await t.rejects(db.sql(`SELECT * FROM retention_remove_non_hits(now() - interval '2 hours', 0)`), /p_limit/);
  const asApp = (sql: string): Promise<unknown> =>
    db.transaction(async (tx) => {
      await tx.sql('SET LOCAL ROLE alpr_app');
      return tx.sql(sql);
    });
  await t.rejects(
    asApp(
      `INSERT INTO chain_tombstones (collector_id, chain_seq, prev_hash, record_hash, cutoff) VALUES ('${collector}', 1, '${'a'.repeat(64)}', '${'b'.repeat(64)}', now())`,
    ),
    /permission denied/,
  );
  t.same(await asApp(`SELECT * FROM retention_remove_non_hits(now() - interval '2 hours', 100)`), [], 'it may ask, and the 15-minute-old read stays');
  t.equal(await count(db, 'detections'), 1);
});
