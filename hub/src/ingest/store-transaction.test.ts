/**
 * The store statement travels with the COMMIT unanswered (store-transaction.ts), so it checks
 * its own result (batch-sql.ts storeDetections, alpr_check of migration 0048): a head that
 * would move backwards or a row count off by one fails it, and the batch's COMMIT rolls
 * everything back. Both on PostgreSQL's pipelined path and on PGlite.
 */
import t from 'tap';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { nextChainLink } from '../db/chain.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { systemClock } from '../platform/clock.ts';
import { createLog } from '../platform/log.ts';
import { storeDetections } from './batch-sql.ts';
import { commitDetections } from './store-transaction.ts';
import { sampleDetection } from './uploads.test-helper.ts';

const db = await testDatabase(t);
const log = createLog('silent');
const ctx = { db, clock: systemClock, log, config: loadHubConfig({ HUB_LOG_LEVEL: 'silent' }) };
const { collectorId } = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Checked depot' });

const counts = async () => {
  const [row] = await db.sql<{ detections: number; queued: number; keys: number; head: string | null }>(
    `SELECT (SELECT count(*)::int FROM detections WHERE collector_id = $1::uuid) AS detections,
            (SELECT count(*)::int FROM alert_queue WHERE collector_id = $1::uuid) AS queued,
            (SELECT count(*)::int FROM detection_keys WHERE collector_id = $1::uuid) AS keys,
            (SELECT last_seq::text FROM collector_chain_heads WHERE collector_id = $1::uuid) AS head`,
    [collectorId],
  );
  return row;
};
const items = (n: number) =>
  Array.from({ length: n }, (_, index) => {
    const detection = sampleDetection();
    return { index, detection, capturedAt: new Date(detection.timestamp) };
  });

t.test('a batch is stored with its COMMIT, the statement unanswered until then', async (t) => {
  const outcomes = await db.pipelinedTransaction(async (tx) => {
    const staged = await commitDetections(tx, collectorId, items(3), new Date());
    tx.commitWith(staged.written);
    return staged.outcomes;
  });
  t.same(
    [...outcomes.values()].map((o) => o.status),
    ['stored', 'stored', 'stored'],
  );
  t.same(await counts(), { detections: 3, queued: 3, keys: 3, head: '3' });
});

t.test('a chain head that would move backwards fails the statement, and the batch is rolled back', async (t) => {
  const before = await counts();
  const failure = db.pipelinedTransaction(async (tx) => {
    const link = await nextChainLink(tx, collectorId);
    // The link before the head: what a second writer racing this one would have read.
    const stale = { ...link, chainSeq: link.chainSeq - 2 };
    const statement = storeDetections(collectorId, { latitude: null, longitude: null }, [], stale, new Date());
    tx.commitWith(tx.sql(statement.text, statement.params));
  });
  await t.rejects(failure, /chain head of collector .* moved backwards/);
  t.same(await counts(), before, 'nothing written');
});

t.test('a row count that is not the batch fails the statement after it wrote, and the batch is rolled back', async (t) => {
  const before = await counts();
  const failure = db.pipelinedTransaction(async (tx) => {
    const staged = await commitDetections(
      {
        ...tx,
        // The statement as sent, with one more row expected than it carries.
        sql: (text, params, options) =>
          tx.sql(text, text.includes('alpr_check') && params ? params.map((p, i) => (i === 9 ? Number(p) + 1 : p)) : params, options),
      },
      collectorId,
      items(2),
      new Date(),
    );
    tx.commitWith(staged.written);
  });
  await t.rejects(failure, /stored 2 detections and 2 alert checks for 3 rows/);
  t.same(await counts(), before, 'no detection, alert check, key or head move kept');
});
