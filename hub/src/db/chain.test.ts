import t from 'tap';
import { advanceChainHead, nextChainLink, verifyChain } from './chain.ts';
import { GENESIS_HASH } from './hash-chain.ts';
import type { DbSession } from './session.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from './fixtures.test-helper.ts';
import { testDatabase } from './database.test-helper.ts';

/** Tampering as a superuser would: triggers off for this transaction only. */
async function tamper(db: DbSession, statement: string, params: unknown[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.sql('SET LOCAL session_replication_role = replica');
    await tx.sql(statement, params);
  });
}

t.test('hash chain', async (t) => {
  const db = await testDatabase(t, { maxConnections: 6 });

  await t.test('five appended rows verify; the first tampered link is reported', async (t) => {
    const collectorId = await insertCollector(db);
    t.same(await verifyChain(db, collectorId), { ok: true, count: 0 }, 'an empty chain is valid');
    const base = Date.parse('2033-01-10T00:00:00Z');
    const rows = Array.from({ length: 5 }, (_, i) => sampleDetection(collectorId, { detectionId: `d${i + 1}`, capturedAt: new Date(base + i * 60_000) }));
    const ids = await appendChainedDetections(db, collectorId, rows.slice(0, 2));
    ids.push(...(await appendChainedDetections(db, collectorId, rows.slice(2))));
    t.same(await verifyChain(db, collectorId), { ok: true, count: 5 });
    const stored = await db.sql<{ chain_seq: string; prev_hash: string; record_hash: string }>(
      'SELECT chain_seq, prev_hash, record_hash FROM detections WHERE collector_id = $1 ORDER BY chain_seq',
      [collectorId],
    );
    t.same(
      stored.map((r) => r.chain_seq),
      ['1', '2', '3', '4', '5'],
    );
    t.equal(stored[0]?.prev_hash, GENESIS_HASH, 'the first link starts at 64 zeros');
    t.equal(stored[3]?.prev_hash, stored[2]?.record_hash, 'links across batches');

    await tamper(db, `UPDATE detections SET plate_number = 'FORGED' WHERE id = $1`, [ids[2]]);
    const forged = await verifyChain(db, collectorId);
    t.match(forged, { ok: false, brokenAt: { chain_seq: 3, id: ids[2], actual: stored[2]?.record_hash, reason: 'record_hash' } });
    t.not(forged.ok === false && forged.brokenAt.expected, stored[2]?.record_hash);

    // Recomputing the forged row's hash does not help: the next link no longer matches.
    await tamper(db, `UPDATE detections SET plate_number = 'ABC123', confidence = 0.5 WHERE id = $1`, [ids[2]]);
    const again = await verifyChain(db, collectorId);
    t.match(again, { ok: false, brokenAt: { chain_seq: 3, reason: 'record_hash' } }, 'any covered field');
  });

  await t.test('a removed record or a rewritten tail is found', async (t) => {
    const collectorId = await insertCollector(db);
    const ids = await appendChainedDetections(
      db,
      collectorId,
      Array.from({ length: 4 }, (_, i) => sampleDetection(collectorId, { detectionId: `r${i}` })),
    );
    await tamper(db, 'DELETE FROM detections WHERE id = $1', [ids[1]]);
    t.match(await verifyChain(db, collectorId), { ok: false, brokenAt: { chain_seq: 3, id: ids[2], reason: 'sequence' } });

    const other = await insertCollector(db);
    const tail = await appendChainedDetections(db, other, [sampleDetection(other), sampleDetection(other)]);
    await tamper(db, 'DELETE FROM detections WHERE id = $1', [tail[1]]);
    t.match(await verifyChain(db, other), { ok: false, brokenAt: { chain_seq: 2, id: null, actual: null, reason: 'head' } });
  });

  await t.test('chain primitives refuse to run outside a transaction', async (t) => {
    const collectorId = await insertCollector(db);
    await t.rejects(nextChainLink(db, collectorId), /needs a transaction/);
    await t.rejects(advanceChainHead(db, { collectorId, chainSeq: 2, prevHash: GENESIS_HASH }), /needs the transaction/);
    await t.rejects(
      db.transaction(async (tx) => {
        const link = await nextChainLink(tx, collectorId);
        await advanceChainHead(tx, { ...link, chainSeq: 0 });
      }),
      /moved backwards/,
    );
  });

  await t.test('concurrent appends for one collector stay linear', async (t) => {
    if (db.kind !== 'postgres') {
      t.comment('needs the real server (PGlite has one connection); runs under CI with DATABASE_URL');
      return;
    }
    const collectorId = await insertCollector(db);
    // 6 batches of 3 at once over 6 connections, each pausing while holding its link: without
    // the head lock they would all chain onto the same head and share chain_seq values.
    await Promise.all(
      Array.from({ length: 6 }, (_, b) =>
        appendChainedDetections(
          db,
          collectorId,
          Array.from({ length: 3 }, (_, i) => sampleDetection(collectorId, { detectionId: `c${b}-${i}` })),
          { pauseSeconds: 0.05 },
        ),
      ),
    );
    t.same(await verifyChain(db, collectorId), { ok: true, count: 18 });
    const [distinct] = await db.sql('SELECT count(DISTINCT chain_seq) AS n, max(chain_seq) AS top FROM detections WHERE collector_id = $1', [collectorId]);
    t.same(distinct, { n: '18', top: '18' });
  });
});
