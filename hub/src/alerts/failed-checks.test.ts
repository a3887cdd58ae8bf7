import t from 'tap';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { someUser, uploadPlates } from './alerts.test-helper.ts';
import { createAlertWorker } from './worker.ts';
import { listFailedAlertChecks, requeueFailedAlertChecks } from './failed-checks.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent') };
const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, actor, { name: 'Stolen', priority: 'critical' });
await addEntry(ctx, actor, list.id, { plate: 'FA1LED', notes: 'blue van' });

async function drain(worker: ReturnType<typeof createAlertWorker>): Promise<void> {
  while ((await worker.runOnce()) > 0) {
    /* until the queue is empty */
  }
}
const alertCount = async () => Number((await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM alerts WHERE watchlist_id = $1`, [list.id]))[0]?.n);

t.test('a check that failed for good is listed with its error, requeued once, and raises its alert exactly once', async (t) => {
  const [detectionId] = await uploadPlates(hub, ['FA1LED']);
  let broken = true;
  const real = createWatchlistCache(ctx);
  const cache = { ...real, index: async () => (broken ? Promise.reject(new Error('watchlist store unreachable')) : real.index()) };
  const worker = createAlertWorker(ctx, cache);
  for (let i = 0; i < 5; i++) {
    await drain(worker);
    clock.advance(61_000);
  }
  const failed = await listFailedAlertChecks(db);
  t.equal(failed.total, 1);
  t.match(failed.items[0], { detection_id: detectionId, plate_number: 'FA1LED', attempts: 5, last_error: 'watchlist store unreachable', failed_at: String });
  t.equal(await alertCount(), 0, 'nobody saw this hit');

  broken = false;
  const id = failed.items[0]?.id ?? '';
  t.same(await requeueFailedAlertChecks(ctx, actor, { id }), { requeued: 1 });
  await t.rejects(requeueFailedAlertChecks(ctx, actor, { id }), { code: 'conflict' }, 'a pending item is not requeued twice');
  await t.rejects(requeueFailedAlertChecks(ctx, actor, { id: '999999999' }), { code: 'not_found' });
  await t.rejects(requeueFailedAlertChecks(ctx, actor, { id: 'x' }), { code: 'not_found' });
  await drain(worker);
  await drain(worker);
  t.equal(await alertCount(), 1, 'the alert is raised once');
  t.equal((await listFailedAlertChecks(db)).total, 0);
  const [audit] = await db.sql<{ detail: Record<string, unknown> }>(`SELECT detail FROM audit_log WHERE action = 'alert_check.requeued' AND target_id = $1`, [
    id,
  ]);
  t.match(audit?.detail, { count: 1, last_error: 'watchlist store unreachable' }, 'audited with the error it had');
  t.same(await requeueFailedAlertChecks(ctx, actor, { all: true }), { requeued: 0 }, 'requeue-all with none failed');
});
