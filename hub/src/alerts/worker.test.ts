import t from 'tap';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist, updateWatchlist } from '../watchlists/watchlists.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { claimItems } from './queue.ts';
import { someUser, uploadPlates } from './alerts.test-helper.ts';
import { createAlertHooks } from './hooks.ts';
import { createAlertWorker } from './worker.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
// The worker's own clock: claims, locks and backoffs move with it; detections use real time.
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent') };
const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, actor, { name: 'Stolen', priority: 'critical' });
await addEntry(ctx, actor, list.id, { plate: 'WAT1CH', notes: 'grey estate' });

async function alertsFor(detectionIds: readonly string[]) {
  return db.sql<{ detection_id: string; watchlist_id: string; match_kind: string; entry_snapshot: Record<string, unknown>; watchlist_entry_id: string | null }>(
    `SELECT k.detection_id, a.watchlist_id, a.match_kind, a.entry_snapshot, a.watchlist_entry_id
     FROM alerts a JOIN detection_keys k ON k.detection_pk = a.detection_id
     WHERE k.detection_id IN (SELECT value FROM json_array_elements_text($1::json)) ORDER BY k.detection_id, a.watchlist_id`,
    [JSON.stringify(detectionIds)],
  );
}

async function queueOf(detectionIds: readonly string[]) {
  return db.sql<{ status: string; attempts: number; last_error: string | null }>(
    `SELECT q.status, q.attempts, q.last_error FROM alert_queue q JOIN detection_keys k ON k.detection_pk = q.detection_id
     WHERE k.detection_id IN (SELECT value FROM json_array_elements_text($1::json)) ORDER BY q.id`,
    [JSON.stringify(detectionIds)],
  );
}

async function drain(worker: ReturnType<typeof createAlertWorker>): Promise<void> {
  while ((await worker.runOnce()) > 0) {
    /* until the queue is empty */
  }
}

t.test('a watched plate raises one alert with what matched; others none; every item settled and gone', async (t) => {
  const cache = createWatchlistCache(ctx);
  const worker = createAlertWorker(ctx, cache);
  const ids = await uploadPlates(hub, ['WAT1CH', 'OTHER1', 'WATICH']);
  await drain(worker);
  const alerts = await alertsFor(ids);
  t.equal(alerts.length, 2, 'the watched plate, and a read of it with I for 1 (the same plate_normalized)');
  t.match(alerts[0], { watchlist_id: list.id, match_kind: 'exact', entry_snapshot: { plate_number: 'WAT1CH', notes: 'grey estate', added_by: actor.userId } });
  t.same(await queueOf(ids), [], 'each settled item left the queue with its alerts (0047)');
  await drain(worker);
  t.equal((await alertsFor(ids)).length, 2, 'a second pass raises nothing more');
});

t.test('items carry their plate; one queued by a hub before 0021 (no plate) is matched from detections', async (t) => {
  const cache = createWatchlistCache(ctx);
  const worker = createAlertWorker(ctx, cache);
  const ids = await uploadPlates(hub, ['WAT1CH', 'OTHER2']);
  const queued = await db.sql<{ plate_normalized: string | null }>(
    `SELECT q.plate_normalized FROM alert_queue q JOIN detection_keys k ON k.detection_pk = q.detection_id
     WHERE k.detection_id IN (SELECT value FROM json_array_elements_text($1::json)) ORDER BY q.id`,
    [JSON.stringify(ids)],
  );
  t.same(
    queued.map((q) => q.plate_normalized),
    ['WAT1CH', ocrNormalize('OTHER2')],
    'ingest wrote each item with its normalized plate',
  );
  // What an older hub left: the same items without a plate.
  await db.sql(
    `UPDATE alert_queue q SET plate_normalized = NULL FROM detection_keys k
     WHERE k.detection_pk = q.detection_id AND k.detection_id IN (SELECT value FROM json_array_elements_text($1::json))`,
    [JSON.stringify(ids)],
  );
  await drain(worker);
  t.same(
    (await alertsFor(ids)).map((a) => a.detection_id),
    [ids[0]],
    'the watched plate still raised its alert',
  );
  t.same(await queueOf(ids), [], 'both settled and gone');
});

t.test('OCR tolerance is per watchlist: one confusable character differs', async (t) => {
  const tolerant = await createWatchlist(ctx, actor, { name: 'Tolerant', ocr_tolerant: true });
  await addEntry(ctx, actor, tolerant.id, { plate: 'BZ60KX' });
  const strict = await createWatchlist(ctx, actor, { name: 'Strict' });
  await addEntry(ctx, actor, strict.id, { plate: 'BZ60KX' });
  const cache = createWatchlistCache(ctx);
  const worker = createAlertWorker(ctx, cache);
  const ids = await uploadPlates(hub, ['8Z60KX', '82G0KX']);
  await drain(worker);
  const alerts = await alertsFor(ids);
  t.same(
    alerts.map((a) => [a.detection_id === ids[0] ? 'one misread' : 'two', a.watchlist_id === tolerant.id ? 'tolerant' : 'strict', a.match_kind]),
    [['one misread', 'tolerant', 'ocr']],
  );
  await updateWatchlist(ctx, actor, tolerant.id, { is_active: false });
});

t.test('a worker that dies holding a claim: the claim is returned after the lock timeout and the alert raised once', async (t) => {
  const cache = createWatchlistCache(ctx);
  const ids = await uploadPlates(hub, ['WAT1CH']);
  const claimed = await claimItems(db, 100, clock.now());
  t.ok(claimed.length >= 1, 'claimed, then the worker "dies"');
  const worker = createAlertWorker(ctx, cache);
  await drain(worker);
  t.same(
    (await queueOf(ids)).map((q) => q.status),
    ['processing'],
    'still held inside the lock timeout',
  );
  clock.advance(31_000);
  await drain(worker);
  t.same(await queueOf(ids), [], 'reclaimed after 30 s (+ the 10 s reaper period at most) and settled');
  t.equal((await alertsFor(ids)).length, 1);
  t.ok(worker.stats().reaped >= 1);

  // The other half of a lost claim: alerts committed, then the item handed out again.
  await db.sql(
    `UPDATE alert_queue SET status = 'pending', attempts = 0 WHERE detection_id = (SELECT detection_pk FROM detection_keys WHERE detection_id = $1)`,
    [ids[0]],
  );
  await drain(worker);
  t.equal((await alertsFor(ids)).length, 1, 'a re-run never doubles an alert (unique detection, watchlist)');
});

t.test('five failed tries make an item failed with its last error; backoff between tries', async (t) => {
  const ids = await uploadPlates(hub, ['WAT1CH']);
  let broken = true;
  const real = createWatchlistCache(ctx);
  const cache = { ...real, index: async () => (broken ? Promise.reject(new Error('watchlist store unreachable')) : real.index()) };
  const worker = createAlertWorker(ctx, cache);
  await drain(worker);
  t.match(await queueOf(ids), [{ status: 'pending', attempts: 1, last_error: 'watchlist store unreachable' }]);
  await drain(worker);
  t.match(await queueOf(ids), [{ attempts: 1 }], 'not retried before its backoff (2 s)');
  for (let i = 2; i <= 5; i++) {
    clock.advance(61_000);
    await drain(worker);
  }
  t.match(await queueOf(ids), [{ status: 'failed', attempts: 5, last_error: 'watchlist store unreachable' }]);
  broken = false;
  clock.advance(61_000);
  await drain(worker);
  t.match(await queueOf(ids), [{ status: 'failed' }], 'failed stays failed');
  t.equal((await alertsFor(ids)).length, 0);
});

t.test('the loop: woken by the ingest NOTIFY, and the cache follows changes at once', async (t) => {
  const cache = createWatchlistCache(ctx);
  await cache.start(db.listen.bind(db));
  t.teardown(() => cache.stop());
  const raised: string[] = [];
  const worker = createAlertWorker(ctx, cache, { pollMs: 60_000, onRaised: (alerts) => raised.push(...alerts.map((a) => a.id)) });
  await worker.start(db.listen.bind(db));
  t.teardown(() => worker.stop());
  await addEntry(ctx, actor, list.id, { plate: 'NEW1PL' });
  const until = async (check: () => boolean): Promise<boolean> => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
    return check();
  };
  t.ok(await until(() => cache.stats().invalidations >= 1), 'the change reached the cache by NOTIFY');
  const ids = await uploadPlates(hub, ['NEW1PL']);
  t.ok(await until(() => raised.length >= 1), 'raised without waiting for the 60 s poll: the detections NOTIFY woke the worker');
  t.equal((await alertsFor(ids)).length, 1);
});

t.test('hooks run inside the raising transaction: their writes commit with the alert, and a throw rolls the alert back', async (t) => {
  const cache = createWatchlistCache(ctx);
  const seen: string[] = [];
  const hooks = createAlertHooks();
  hooks.onRaisedInTransaction(async (tx, raised) => {
    // A write of the hook's own, in the same transaction as the alert.
    const [row] = await tx.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM alerts WHERE id IN (SELECT value::bigint FROM json_array_elements_text($1::json))',
      [JSON.stringify(raised.map((a) => a.id))],
    );
    seen.push(`${raised.length} raised, ${row?.n} visible`);
  });
  const worker = createAlertWorker(ctx, cache, { hooks });
  const ids = await uploadPlates(hub, ['WAT1CH']);
  await drain(worker);
  t.same(seen, ['1 raised, 1 visible'], 'the hook saw the alert rows of its own transaction');
  t.equal((await alertsFor(ids)).length, 1);

  let fail = true;
  const failing = createAlertHooks();
  failing.onRaisedInTransaction(async () => {
    if (fail) throw new Error('hook down');
  });
  const second = createAlertWorker(ctx, cache, { hooks: failing, pollMs: 60_000 });
  const more = await uploadPlates(hub, ['WAT1CH']);
  await second.runOnce();
  t.equal((await alertsFor(more)).length, 0, 'no alert without its hook work');
  t.match(await queueOf(more), [{ status: 'pending', attempts: 1, last_error: /hook down/ }], 'the item is retried');
  fail = false;
  clock.advance(3_600_000);
  await drain(second);
  t.equal((await alertsFor(more)).length, 1, 'raised once the hook succeeds');
});
