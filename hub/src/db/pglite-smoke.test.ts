import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLog } from '../platform/log.ts';
import { verifyChain } from './chain.ts';
import { openDatabase } from './client.ts';
import { checkDriverContract, checkListenContract } from './driver-contract.test-helper.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from './fixtures.test-helper.ts';

// Always PGlite, whatever DATABASE_URL says: the embedded backend is what `npm start` uses.
t.test('PGlite: open, migrate, store, verify, reopen', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-pglite-smoke-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const log = createLog('silent');

  const db = await openDatabase({ dataDir: dir, log });
  t.equal(db.kind, 'pglite');
  t.ok(db.migrations.applied.length >= 8, 'all migrations applied on a fresh folder');
  await checkDriverContract(t, db);
  await checkListenContract(t, db);

  const collectorId = await insertCollector(db);
  const ids = await appendChainedDetections(db, collectorId, [
    sampleDetection(collectorId),
    sampleDetection(collectorId, { plateNumber: 'XYZ9', plateNormalized: 'XYZ9' }),
  ]);
  t.equal(ids.length, 2);
  t.same(await verifyChain(db, collectorId), { ok: true, count: 2 });
  await db.close();

  // Data survives on disk, and a restart applies nothing twice.
  const again = await openDatabase({ dataDir: dir, log });
  t.same(again.migrations.applied, [], 'nothing re-applied on restart');
  t.same(await verifyChain(again, collectorId), { ok: true, count: 2 });
  await again.close();
});
