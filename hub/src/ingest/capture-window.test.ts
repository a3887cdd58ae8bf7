import t from 'tap';
import { verifyChain } from '../db/chain.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { jpegLike, sampleDetection, startTestHub, uploadBatch } from './uploads.test-helper.ts';

// Issue 10: far-future capture times were stored into the default partition. Over real HTTP:
// each such item is rejected with its reason, the rest of the batch is stored.
t.test('capture times beyond the configured margin are rejected per item; the batch is stored', async (t) => {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db, config: { maxCaptureAheadSeconds: 3600 } });
  t.teardown(() => hub.close());
  const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const timestamps = [ahead(-5), ahead(50), ahead(70), ahead(31 * 24 * 60), '2100-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'];
  const entries = timestamps.map((timestamp) => ({ detection: sampleDetection({ timestamp }), plateCrop: jpegLike(2_000) }));
  const answer = await uploadBatch(hub, hub.apiKey, entries);
  t.equal(answer.accepted, 2);
  t.same(
    answer.results.map((r) => r.status),
    ['stored', 'stored', 'rejected', 'rejected', 'rejected', 'rejected'],
  );
  for (const r of answer.results.slice(2)) t.match(r.reason, /^timestamp: more than 1 h ahead of the hub's clock/);
  const rows = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM detections`);
  t.equal(rows[0]?.n, '2', 'only the plausible times are stored');
  const inDefault = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM detections_default`);
  t.equal(inDefault[0]?.n, '0', 'nothing lands in the default partition');
  t.same(await verifyChain(db, hub.collectorId), { ok: true, count: 2 });
});

t.test('the margin is configuration: HUB_MAX_CAPTURE_AHEAD_SECONDS, bounded', async (t) => {
  const { loadHubConfig } = await import('../platform/config/hub-config.ts');
  t.equal(loadHubConfig({}).maxCaptureAheadSeconds, 86_400, 'default 24 h');
  t.equal(loadHubConfig({ HUB_MAX_CAPTURE_AHEAD_SECONDS: '600' }).maxCaptureAheadSeconds, 600);
  t.throws(() => loadHubConfig({ HUB_MAX_CAPTURE_AHEAD_SECONDS: '10' }), /HUB_MAX_CAPTURE_AHEAD_SECONDS/);
  t.throws(
    () => loadHubConfig({ HUB_MAX_CAPTURE_AHEAD_SECONDS: String(90 * 86_400) }),
    /HUB_MAX_CAPTURE_AHEAD_SECONDS/,
    'never beyond the partitions created ahead',
  );
});
