/**
 * Signed outgoing webhooks end to end on either database: real alerts raised by the alert
 * worker from uploaded detections, queued in its transaction, POSTed by the delivery worker
 * to a real receiver on loopback that checks each signature on its own. Retries move with
 * the injected clock.
 */
import t from 'tap';
import { uploadPlates } from '../alerts/alerts.test-helper.ts';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { queueWebhooksOnRaise, enqueueTestEvent } from './enqueue.ts';
import { MAX_WEBHOOK_TRIES, WEBHOOK_RETRY_DELAYS_MS } from './queue.ts';
import { createTarget, editTarget } from './targets.ts';
import { createWebhookWorker } from './worker.ts';
import { hubWithWatchlist, startReceiver } from './webhooks.test-helper.ts';

const { db, hub, clock, ctx, list } = await hubWithWatchlist(t, {
  name: 'Stolen',
  priority: 'critical',
  plates: ['HOOK1', 'HOOK2', 'HOOK3', 'HOOK4', 'HOOK5', 'OTHER9'],
});
const hooks = createAlertHooks();
queueWebhooksOnRaise(hooks);
const alertWorker = createAlertWorker(ctx, createWatchlistCache(ctx), { hooks });
const receiver = await startReceiver();
t.teardown(() => receiver.close());
const { row: target, secret } = await createTarget(ctx, {
  name: 'Gate system',
  url: receiver.url,
  events: ['alert'],
  filter: { plate_pattern: 'HOOK*' },
  enabled: true,
});
receiver.secret = secret;

async function raise(plates: string[]): Promise<void> {
  // A 202 (stored, with backpressure advice) is success: uploadPlates takes it as a collector does.
  await uploadPlates(hub, plates);
  while ((await alertWorker.runOnce()) > 0) {
    /* until the alert queue is empty */
  }
}

async function deliveries() {
  return db.sql<{ message_id: string; status: string; attempts: number; next_retry_at: Date; last_status: number | null; last_error: string | null }>(
    `SELECT message_id, status, attempts, next_retry_at, last_status, last_error FROM webhook_deliveries ORDER BY id`,
  );
}

t.test('a raised alert arrives signed, in the documented shape; the filter keeps other plates out', async (t) => {
  const worker = createWebhookWorker(ctx);
  await raise(['HOOK1', 'OTHER9']);
  t.equal(await worker.runOnce(), 1, 'one delivery: OTHER9 is on the list but not under HOOK*');
  t.equal(receiver.received.length, 1);
  const got = receiver.received[0];
  t.ok(got?.verified, 'the receiver verified the signature with its own implementation');
  t.match(got?.id, /^msg_[0-9a-f]{32}$/);
  t.match(got?.body, {
    type: 'alert.raised',
    data: {
      watchlist: { id: list.id, name: 'Stolen', priority: 'critical' },
      plate: { text: 'HOOK1', normalized: 'H00K1' },
      detection: { collector_id: hub.collectorId },
    },
  });
  t.equal(got?.timestamp, Math.floor(clock.now().getTime() / 1000), 'the timestamp is the attempt time');
  t.same(
    (await deliveries()).map((d) => d.status),
    ['sent'],
  );
  t.equal(await worker.runOnce(), 0, 'nothing sent twice');
});

t.test('a receiver answering 500 gets the same message id again after the backoff', async (t) => {
  const worker = createWebhookWorker(ctx);
  receiver.answer = 'error';
  const before = receiver.received.length;
  await raise(['HOOK2']);
  t.equal(await worker.runOnce(), 1);
  const [, failed] = await deliveries();
  t.match(failed, { status: 'pending', attempts: 1, last_status: 500, last_error: /HTTP 500/ });
  t.equal(new Date(failed?.next_retry_at ?? 0).getTime(), clock.now().getTime() + WEBHOOK_RETRY_DELAYS_MS[0], 'due after the first wait');
  t.equal(await worker.runOnce(), 0, 'not before the wait is over');
  receiver.answer = 'ok';
  clock.advance(WEBHOOK_RETRY_DELAYS_MS[0]);
  t.equal(await worker.runOnce(), 1, 'retried once the injected clock passes the wait');
  const ids = receiver.received.slice(before).map((r) => r.id);
  t.same(ids, [failed?.message_id, failed?.message_id], 'both tries under one webhook-id');
  t.ok(receiver.received.slice(before).every((r) => r.verified));
  const [target1] = await db.sql<{ last_success_at: Date | null; last_failure_at: Date | null; last_error: string | null }>(
    `SELECT last_success_at, last_failure_at, last_error FROM webhook_targets WHERE id = $1::uuid`,
    [target.id],
  );
  t.ok(target1?.last_success_at && target1.last_failure_at, 'the target shows its last success and last failure');
});

t.test('a receiver that never answers times out and is retried; after the last try the delivery fails', async (t) => {
  const worker = createWebhookWorker(ctx, { timeoutMs: 300 });
  receiver.answer = 'hang';
  await raise(['HOOK3']);
  for (let i = 0; i < MAX_WEBHOOK_TRIES; i += 1) {
    t.equal(await worker.runOnce(), 1, `try ${i + 1}`);
    clock.advance(WEBHOOK_RETRY_DELAYS_MS[i] ?? 0);
  }
  const last = (await deliveries()).at(-1);
  t.match(last, { status: 'failed', attempts: MAX_WEBHOOK_TRIES, last_status: null, last_error: /Timeout/i });
  t.equal(await worker.runOnce(), 0, 'a failed delivery is not tried again');
  receiver.answer = 'ok';
});

t.test('send test event goes through the same queue; a disabled target waits', async (t) => {
  const worker = createWebhookWorker(ctx);
  const before = receiver.received.length;
  await editTarget(ctx, target.id, { enabled: false });
  const { messageId } = await enqueueTestEvent(ctx, target.id);
  t.equal(await worker.runOnce(), 0, 'nothing goes to a disabled target');
  await editTarget(ctx, target.id, { enabled: true });
  t.equal(await worker.runOnce(), 1);
  t.match(receiver.received[before], { id: messageId, verified: true, body: { type: 'webhook.test', data: { target_id: target.id } } });
});

t.test('a re-run of the raising hook queues nothing twice', async (t) => {
  const count = async () => Number((await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries`))[0]?.n);
  const before = await count();
  const [alert] = await db.sql<{ id: string; detectionPk: string; watchlistId: string }>(
    `SELECT id::text AS id, detection_id::text AS "detectionPk", watchlist_id::text AS "watchlistId" FROM alerts ORDER BY id LIMIT 1`,
  );
  if (!alert) throw new Error('no alert');
  await db.transaction((tx) => hooks.raisedInTransaction(tx, [{ ...alert, plate: 'HOOK1' }], clock.now()));
  t.equal(await count(), before);
});
