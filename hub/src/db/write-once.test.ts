import t from 'tap';
import { ensureUpcomingPartitions, partitionNameFor } from './partitions.ts';
import { auditLog } from './schema/audit-log.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from './fixtures.test-helper.ts';
import { testDatabase } from './database.test-helper.ts';

const WRITE_ONCE = /write-once/;

t.test('write-once detections and audit log', async (t) => {
  const db = await testDatabase(t);
  const collectorId = await insertCollector(db);
  const now = new Date();
  const [id] = await appendChainedDetections(db, collectorId, [sampleDetection(collectorId, { capturedAt: now })]);
  t.ok(id);
  const current = partitionNameFor(now);

  await t.rejects(db.sql(`UPDATE detections SET plate_number = 'XXX' WHERE id = $1`, [id]), WRITE_ONCE, 'UPDATE refused');
  await t.rejects(db.sql(`DELETE FROM detections WHERE id = $1`, [id]), WRITE_ONCE, 'DELETE refused');
  // TRUNCATE would empty months silently. Plain TRUNCATE already fails on the foreign key
  // from detection_keys; CASCADE gets past that and meets the trigger.
  await t.rejects(db.sql('TRUNCATE detections CASCADE'), WRITE_ONCE, 'TRUNCATE of the parent refused');
  await t.rejects(db.sql(`TRUNCATE ${current} CASCADE`), WRITE_ONCE, 'TRUNCATE of a partition refused');
  await t.rejects(db.sql(`UPDATE ${current} SET plate_number = 'XXX'`), WRITE_ONCE, 'UPDATE through the partition refused');
  await t.rejects(db.sql(`DELETE FROM ${current}`), WRITE_ONCE, 'DELETE through the partition refused');
  const rows = await db.sql(`SELECT d.plate_number, (SELECT count(*) FROM detection_keys) AS keys FROM detections d`);
  t.same(rows, [{ plate_number: 'ABC123', keys: '1' }], 'the record and its key are untouched');

  await t.test('partitions created later inherit the guard', async (t) => {
    t.equal(await ensureUpcomingPartitions(db, new Date('2041-06-15T00:00:00Z')), 6);
    await appendChainedDetections(db, collectorId, [sampleDetection(collectorId, { capturedAt: new Date('2041-06-20T10:00:00Z') })]);
    await t.rejects(db.sql(`UPDATE detections_y2041m06 SET confidence = 0`), WRITE_ONCE);
    await t.rejects(db.sql(`TRUNCATE detections_y2041m06 CASCADE`), WRITE_ONCE);
    await appendChainedDetections(db, collectorId, [sampleDetection(collectorId, { capturedAt: new Date('2077-01-01T00:00:00Z') })]);
    await t.rejects(db.sql(`DELETE FROM detections_default`), WRITE_ONCE, 'default partition too');
    await t.rejects(db.sql(`TRUNCATE detections_default CASCADE`), WRITE_ONCE);
  });

  await t.test('audit log', async (t) => {
    const [entry] = await db.db.insert(auditLog).values({ action: 'user.login', ip: '127.0.0.1' }).returning();
    t.ok(entry);
    await t.rejects(db.sql(`UPDATE audit_log SET action = 'x' WHERE id = $1`, [entry?.id]), WRITE_ONCE);
    await t.rejects(db.sql(`DELETE FROM audit_log WHERE id = $1`, [entry?.id]), WRITE_ONCE);
    await t.rejects(db.sql(`TRUNCATE audit_log`), WRITE_ONCE);
  });

  await t.test('the application role holds no UPDATE, DELETE or TRUNCATE on them', async (t) => {
    const rows = await db.sql<{ t: string; p: string; has: boolean }>(`
      SELECT t, p, has_table_privilege('alpr_app', t, p) AS has
      FROM unnest(ARRAY['detections', 'audit_log', 'detection_keys', 'detections_default']) AS t,
           unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p ORDER BY t, p`);
    const granted = rows.filter((r) => r.has).map((r) => `${r.t} ${r.p}`);
    t.same(granted, ['audit_log INSERT', 'audit_log SELECT', 'detection_keys INSERT', 'detection_keys SELECT', 'detections INSERT', 'detections SELECT']);
    t.equal((await db.sql(`SELECT has_table_privilege('alpr_app', 'alerts', 'UPDATE') AS ok`))[0]?.['ok'], true);
    // The privilege check comes before any trigger: the hub's role is stopped at the door.
    await t.rejects(
      db.transaction(async (tx) => {
        await tx.sql('SET LOCAL ROLE alpr_app');
        await tx.sql(`UPDATE detections SET plate_number = 'XXX'`);
      }),
      /permission denied/,
    );
    const inserted = await db.transaction(async (tx) => {
      await tx.sql('SET LOCAL ROLE alpr_app');
      return tx.sql(`INSERT INTO audit_log (action) VALUES ('as app') RETURNING id`);
    });
    t.equal(inserted.length, 1, 'alpr_app can append');
  });
});
