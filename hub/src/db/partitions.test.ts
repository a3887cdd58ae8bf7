import t from 'tap';
import { verifyChain } from './chain.ts';
import { ensureUpcomingPartitions, partitionNameFor } from './partitions.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from './fixtures.test-helper.ts';
import { testDatabase } from './database.test-helper.ts';

async function partitions(db: { sql: (text: string) => Promise<Record<string, unknown>[]> }): Promise<string[]> {
  const rows = await db.sql(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'detections'::regclass ORDER BY 1`);
  return rows.map((r) => String(r['name']));
}

t.test('partitions, default partition, idempotency and trigram search', async (t) => {
  const db = await testDatabase(t);
  const collectorId = await insertCollector(db);

  await t.test('monthly partitions are created 2 months back to 3 ahead', async (t) => {
    const before = await partitions(db);
    t.ok(before.includes('detections_default'));
    t.ok(before.includes(partitionNameFor(new Date())), 'the current month exists after start');
    t.equal(await ensureUpcomingPartitions(db, new Date('2033-03-15T12:00:00Z')), 6);
    const added = (await partitions(db)).filter((p) => !before.includes(p));
    t.same(added, ['detections_y2033m01', 'detections_y2033m02', 'detections_y2033m03', 'detections_y2033m04', 'detections_y2033m05', 'detections_y2033m06']);
    t.equal(await ensureUpcomingPartitions(db, new Date('2033-03-15T12:00:00Z')), 0, 'second run creates nothing');
    const [bounds] = await db.sql(`SELECT pg_get_expr(relpartbound, oid) AS b FROM pg_class WHERE relname = 'detections_y2033m03'`);
    t.match(bounds?.['b'], /FROM \('2033-03-01 00:00:00(\+00)?'\) TO \('2033-04-01 00:00:00(\+00)?'\)/, 'UTC month bounds');
  });

  await t.test('rows land in their month; odd timestamps in the default partition', async (t) => {
    await appendChainedDetections(db, collectorId, [
      sampleDetection(collectorId, { detectionId: 'in-month', capturedAt: new Date('2033-03-31T23:59:59.999Z') }),
      sampleDetection(collectorId, { detectionId: 'far-future', capturedAt: new Date('2044-07-01T00:00:00Z') }),
      sampleDetection(collectorId, { detectionId: 'long-ago', capturedAt: new Date('2001-01-01T00:00:00Z') }),
    ]);
    const rows = await db.sql(`SELECT detection_id, tableoid::regclass::text AS part FROM detections WHERE collector_id = $1 ORDER BY chain_seq`, [
      collectorId,
    ]);
    t.same(rows, [
      { detection_id: 'in-month', part: 'detections_y2033m03' },
      { detection_id: 'far-future', part: 'detections_default' },
      { detection_id: 'long-ago', part: 'detections_default' },
    ]);
    // A month whose rows already sit in the default gets its partition all the same: the
    // rows move into it verbatim (issue 10: creation was skipped for good before).
    const [before] = await db.sql(`SELECT id::text, record_hash, chain_seq::text FROM detections WHERE detection_id = 'far-future'`);
    t.equal(await ensureUpcomingPartitions(db, new Date('2044-06-10T00:00:00Z')), 6);
    const names = await partitions(db);
    t.ok(names.includes('detections_y2044m07'), 'the occupied month has its partition');
    t.ok(names.includes('detections_y2044m08'));
    const moved = await db.sql(`SELECT detection_id, tableoid::regclass::text AS part FROM detections WHERE collector_id = $1 ORDER BY chain_seq`, [
      collectorId,
    ]);
    t.same(
      moved.map((r) => [r['detection_id'], r['part']]),
      [
        ['in-month', 'detections_y2033m03'],
        ['far-future', 'detections_y2044m07'],
        ['long-ago', 'detections_default'],
      ],
      'the row moved out of the default; rows of other months stay',
    );
    const [after] = await db.sql(`SELECT id::text, record_hash, chain_seq::text FROM detections WHERE detection_id = 'far-future'`);
    t.same(after, before, 'moved verbatim: same id and hash-chain columns');
    t.same(await verifyChain(db, collectorId), { ok: true, count: 3 }, 'the hash chain still verifies');
    const [key] = await db.sql(`SELECT count(*)::int AS n FROM detection_keys WHERE detection_id = 'far-future'`);
    t.equal(key?.['n'], 1, 'its idempotency key survived the move (no cascade)');
    const [role] = await db.sql(`SELECT current_setting('session_replication_role') AS r`);
    t.equal(role?.['r'], 'origin', 'triggers are back on for the caller');
    await t.rejects(db.sql(`DELETE FROM detections WHERE detection_id = 'far-future'`), /write-once/, 'the moved row is write-once again');
  });

  await t.test('a detection id is stored once across partitions', async (t) => {
    const first = sampleDetection(collectorId, { detectionId: 'dup', capturedAt: new Date('2033-02-01T00:00:00Z') });
    t.equal((await appendChainedDetections(db, collectorId, [first])).length, 1);
    // Same appliance id re-uploaded with another capture time (another partition): ignored.
    const again = { ...first, capturedAt: new Date('2033-05-01T00:00:00Z') };
    t.same(await appendChainedDetections(db, collectorId, [again, again]), []);
    const rows = await db.sql(`SELECT count(*) AS n FROM detections WHERE detection_id = 'dup'`);
    t.same(rows, [{ n: '1' }]);
    const other = await insertCollector(db, 'Other site');
    t.equal((await appendChainedDetections(db, other, [{ ...first, collectorId: other }])).length, 1, 'ids are per collector');
    await t.rejects(
      db.sql(`INSERT INTO detection_keys VALUES ($1, 'orphan', 999999, now())`, [collectorId]),
      /foreign key/,
      'a key must point at a stored detection by commit',
    );
  });

  await t.test('trigram similarity search uses the GIN index', async (t) => {
    const plates = ['KLM4521', 'KLM4527', 'KLN4521', 'ZZZ0001', 'QRS7788'];
    await appendChainedDetections(
      db,
      collectorId,
      plates.map((p) => sampleDetection(collectorId, { plateNumber: p, plateNormalized: p, capturedAt: new Date('2033-03-10T00:00:00Z') })),
    );
    const similar = await db.sql<{ plate_normalized: string }>(
      `SELECT plate_normalized FROM detections WHERE similarity(plate_normalized, $1) > 0.4
       ORDER BY similarity(plate_normalized, $1) DESC, plate_normalized`,
      ['KLM4521'],
    );
    t.same(
      similar.map((r) => r.plate_normalized),
      ['KLM4521', 'KLM4527', 'KLN4521'],
    );
    const [index] = await db.sql(`SELECT indexdef FROM pg_indexes WHERE indexname = 'detections_plate_trgm_idx'`);
    t.match(index?.['indexdef'], /USING gin \(plate_normalized gin_trgm_ops\)/);
    // A month with real volume: on five rows a whole-index scan of any btree costs less than
    // the trigram index, and the planner (rightly) takes it.
    await db.sql(
      `INSERT INTO detections (collector_id, camera_id, detection_id, plate_number, plate_normalized, confidence, captured_at, chain_seq, prev_hash, record_hash)
       SELECT $1, 'cam-1', 'bulk-' || g, 'P' || g, 'P' || g, 0.9, '2033-03-12T00:00:00Z'::timestamptz + g * interval '1 second', 1000 + g, repeat('0', 64), repeat('0', 64)
       FROM generate_series(1, 5000) AS g`,
      [collectorId],
    );
    await db.sql('ANALYZE detections');
    const plan = await db.transaction(async (tx) => {
      await tx.sql('SET LOCAL enable_seqscan = off');
      return tx.sql(`EXPLAIN SELECT id FROM detections WHERE plate_normalized % 'KLM4521'`);
    });
    // Partition indexes are named after the parent's columns; the btree one adds _captured_at.
    t.match(plan.map((r) => String(r['QUERY PLAN'])).join('\n'), /Bitmap Index Scan on detections_y2033m03_plate_normalized_idx\b/);
  });
});
