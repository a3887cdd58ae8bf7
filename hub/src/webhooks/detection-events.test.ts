/**
 * Detection events and the alert body's `historical` flag, end to end on either database:
 * detections uploaded to a real hub, queued by the detection events worker, POSTed by the
 * delivery worker to a real receiver on loopback that checks each signature on its own.
 */
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import t from 'tap';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { someUser, uploadPlates } from '../alerts/alerts.test-helper.ts';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { retroHunt } from '../alerts/retro-hunt.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { queueWebhooksOnRaise } from './enqueue.ts';
import { createDetectionEventWorker, type DetectionEventWorker } from './detection-worker.ts';
import { createTarget } from './targets.ts';
import { createWebhookWorker } from './worker.ts';
import { startReceiver, type Received } from './webhooks.test-helper.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent'), config: hub.deps.config };
const receiver = await startReceiver();
t.teardown(() => receiver.close());
const delivery = createWebhookWorker(ctx);
const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, actor, { name: 'Stolen', priority: 'high' });

// One secret for every target here, so the receiver can check them all.
const { row: target, secret } = await createTarget(ctx, {
  name: 'Every DET read',
  url: receiver.url,
  events: ['detection'],
  filter: { plate_pattern: 'DET*' },
  enabled: true,
});
receiver.secret = secret;
async function sameSecretTarget(input: Parameters<typeof createTarget>[1]): Promise<string> {
  const { row: created } = await createTarget(ctx, input);
  // The sealed secret copied whole: it opens under any row's id (the salt travels with it).
  await db.sql(
    `UPDATE webhook_targets t SET secret_ciphertext = s.secret_ciphertext, secret_salt = s.secret_salt, secret_prefix = s.secret_prefix
     FROM webhook_targets s WHERE t.id = $1::uuid AND s.id = $2::uuid`,
    [created.id, target.id],
  );
  return created.id;
}
// Never hear a detection: one asks for alerts only, one is filtered by a watchlist.
await sameSecretTarget({ name: 'Alerts only', url: receiver.url, events: ['alert'], filter: { plate_pattern: 'DET*' }, enabled: true });
await sameSecretTarget({ name: 'By list', url: receiver.url, events: ['detection'], filter: { watchlist_id: list.id }, enabled: true });

async function upload(plates: string[]): Promise<void> {
  // A 202 (stored, with backpressure advice) is success: uploadPlates takes it as a collector does.
  await uploadPlates(hub, plates);
}

async function catchUp(worker: DetectionEventWorker): Promise<number> {
  let queued = 0;
  for (;;) {
    const pass = await worker.runOnce();
    if (!pass.settled) throw new Error('horizon waits with nothing in flight');
    queued += pass.queued;
    if (pass.caughtUp) return queued;
  }
}

async function send(): Promise<void> {
  while ((await delivery.runOnce()) > 0) {
    /* until nothing is due */
  }
}

const detectionDeliveries = () =>
  db.sql<{ target_id: string; message_id: string; event_key: string }>(
    `SELECT target_id::text AS target_id, message_id, event_key FROM webhook_deliveries WHERE event_type = 'detection.stored' ORDER BY id`,
  );
const plateOf = (r: Received) => (r.body.data['plate'] as { text: string }).text;

t.test('each matching detection arrives once, signed, in the documented shape; others do not', async (t) => {
  const worker = createDetectionEventWorker(ctx, { pageSize: 2 });
  const before = receiver.received.length;
  await upload(['DET1', 'XYZ9', 'DET2', 'DET3', 'XYZ8']);
  t.equal(await catchUp(worker), 3, 'three deliveries queued across pages of two');
  await send();
  const got = receiver.received.slice(before);
  t.same(got.map(plateOf).sort(), ['DET1', 'DET2', 'DET3'], 'only the plates under DET*, each once, none for the list-filtered or alert-only targets');
  t.ok(
    got.every((r) => r.verified),
    'every signature verified by the receiver',
  );
  const [stored] = await db.sql<{ id: string; detection_id: string; received_at: Date }>(
    `SELECT id::text AS id, detection_id, received_at FROM detections WHERE plate_number = 'DET1'`,
  );
  t.match(
    got.find((r) => plateOf(r) === 'DET1'),
    {
      body: {
        type: 'detection.stored',
        data: {
          record_id: stored?.id,
          plate: { text: 'DET1', normalized: ocrNormalize('DET1'), confidence: 0.9 },
          detection: {
            id: stored?.detection_id,
            received_at: new Date(stored?.received_at ?? 0).toISOString(),
            collector_id: hub.collectorId,
            collector_name: String,
            camera_id: 'gate-1',
            camera_name: String,
          },
        },
      },
    },
  );
  t.equal(await catchUp(worker), 0, 'a second run queues nothing');
});

t.test('a target created later gets new detections, not a backlog', async (t) => {
  const worker = createDetectionEventWorker(ctx);
  const late = await sameSecretTarget({ name: 'Late', url: receiver.url, events: ['detection'], filter: {}, enabled: true });
  t.equal(await catchUp(worker), 0, 'nothing stored since the last run: nothing for the new target');
  await upload(['DET4']);
  t.equal(await catchUp(worker), 2, 'DET4 for both detection targets');
  const forLate = (await detectionDeliveries()).filter((d) => d.target_id === late);
  t.equal(forLate.length, 1);
  await db.sql(`UPDATE webhook_targets SET enabled = false WHERE id = $1::uuid`, [late]);
  await send();
});

t.test('a worker stopped mid-way loses nothing; a cursor moved back doubles nothing', async (t) => {
  await upload(['DET5', 'DET6', 'DET7']);
  const first = createDetectionEventWorker(ctx, { pageSize: 1, maxPagesPerPass: 1 });
  const pass = await first.runOnce();
  t.match(pass, { settled: true, queued: 1, caughtUp: false }, 'one page of one, then the worker is gone');
  const second = createDetectionEventWorker(ctx);
  t.equal(await catchUp(second), 2, 'a new worker goes on from the cursor');
  const keys = (await detectionDeliveries()).filter((d) => d.target_id === target.id).map((d) => d.event_key);
  t.equal(new Set(keys).size, keys.length, 'no detection queued twice for a target');
  t.equal(keys.length, 7, 'DET1 to DET7, each once');

  const before = await detectionDeliveries();
  // As if the cursor's move had been lost while the deliveries stayed: every page read again.
  await db.sql(`UPDATE webhook_detection_cursor SET last_pk = 0`);
  t.equal(await catchUp(createDetectionEventWorker(ctx)), 0, 'nothing queued again');
  t.same(await detectionDeliveries(), before, 'same deliveries under the same message ids (webhook-id)');
  const sent = receiver.received.length;
  await send();
  t.same(receiver.received.slice(sent).map(plateOf).sort(), ['DET5', 'DET6', 'DET7'], 'the receiver sees each once');
});

t.test(
  'a batch that commits after a later-numbered one is not skipped',
  { skip: db.url === undefined ? 'needs two connections (PostgreSQL)' : false },
  async (t) => {
    await upload(['SEED1']);
    const [seed] = await db.sql<{ id: string }>(`SELECT id::text AS id FROM detections WHERE plate_number = 'SEED1'`);
    const worker = createDetectionEventWorker(ctx);
    t.equal(await catchUp(worker), 0);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let drawn: () => void = () => undefined;
    const haveId = new Promise<void>((resolve) => (drawn = resolve));
    // Like ingest: a transaction id first (ingest locks the chain head), then the detection id.
    const slow = db.transaction(async (tx) => {
      await tx.sql(`SELECT pg_current_xact_id()`);
      const [row] = await tx.sql<{ id: string }>(`SELECT nextval('detections_id_seq')::text AS id`);
      drawn();
      await gate;
      await tx.sql(
        `INSERT INTO detection_keys (collector_id, detection_id, detection_pk, captured_at) SELECT collector_id, 'late-1', $2::bigint, captured_at FROM detections WHERE id = $1::bigint`,
        [seed?.id, row?.id],
      );
      await tx.sql(
        `INSERT INTO detections (id, collector_id, camera_id, detection_id, plate_number, plate_normalized, confidence, captured_at, chain_seq, prev_hash, record_hash)
       SELECT $2::bigint, collector_id, camera_id, 'late-1', 'DETLATE', $3, confidence, captured_at, chain_seq, prev_hash, record_hash FROM detections WHERE id = $1::bigint`,
        [seed?.id, row?.id, ocrNormalize('DETLATE')],
      );
    });
    await haveId;
    await upload(['DET8']);
    t.match(await worker.runOnce(), { settled: false, queued: 0 }, 'DET8 waits while a lower id is in flight');
    release();
    await slow;
    t.equal(await catchUp(worker), 2, 'both once the slow batch commits');
    const plates = await db.sql<{ body: string }>(
      `SELECT body FROM webhook_deliveries WHERE event_type = 'detection.stored' AND target_id = $1::uuid ORDER BY id DESC LIMIT 2`,
      [target.id],
    );
    t.same(plates.map((p) => (JSON.parse(p.body) as { data: { plate: { text: string } } }).data.plate.text).sort(), ['DET8', 'DETLATE']);
    await send();
  },
);

t.test(
  "another database's open transaction on the same server does not hold events back",
  { skip: db.url === undefined ? 'needs a second database (PostgreSQL)' : false },
  async (t) => {
    const other = await testDatabase(t);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    // A writing transaction (it holds a transaction id) in another database, left open:
    // transaction ids are server-wide, so the snapshot lists it.
    const elsewhere = other.transaction(async (tx) => {
      await tx.sql(`SELECT pg_current_xact_id()`);
      open();
      await gate;
    });
    await opened;
    const worker = createDetectionEventWorker(ctx);
    await upload(['DETOTHER']);
    const pass = await worker.runOnce();
    release();
    await elsewhere;
    t.match(pass, { settled: true }, 'settled while the other database keeps its transaction open');
    t.equal(pass.queued + (await catchUp(worker)), 1, 'DETOTHER queued once');
    await send();
  },
);

t.test('alert.raised says whether the alert is a retro-hunt hit', async (t) => {
  const hooks = createAlertHooks();
  queueWebhooksOnRaise(hooks);
  const alertsTarget = await sameSecretTarget({ name: 'Alerts', url: receiver.url, events: ['alert'], filter: {}, enabled: true });
  await addEntry(ctx, actor, list.id, { plate: 'LIVE1' });
  await upload(['LIVE1', 'HIST1']);
  const alertWorker = createAlertWorker(ctx, createWatchlistCache(ctx), { hooks });
  while ((await alertWorker.runOnce()) > 0) {
    /* until the alert queue is empty */
  }
  // HIST1 was read before its entry existed: the retro-hunt finds it.
  const entry = await addEntry(ctx, actor, list.id, { plate: 'HIST1' });
  const [read] = await db.sql<{ plate_normalized: string }>(`SELECT plate_normalized FROM detections WHERE plate_number = 'HIST1'`);
  const raised = await db.transaction((tx) =>
    retroHunt(
      tx,
      { id: list.id, name: 'Stolen', priority: 'high', ocrTolerant: false, forgiveOneMisread: false },
      [
        {
          id: entry.id,
          plate: 'HIST1',
          key: read?.plate_normalized ?? 'HIST1',
          notes: null,
          addedBy: actor.userId,
          addedAt: clock.now(),
          expiresAt: null,
          priority: null,
        },
      ],
      { days: 7, now: clock.now(), hooks },
    ),
  );
  t.equal(raised.length, 1, 'one historical hit');
  const before = receiver.received.length;
  await send();
  const alerts = receiver.received.slice(before).filter((r) => r.body.type === 'alert.raised');
  const flag = (plate: string) => alerts.find((r) => plateOf(r) === plate)?.body.data['historical'];
  t.equal(flag('LIVE1'), false, 'a live alert: historical false');
  t.equal(flag('HIST1'), true, 'a retro-hunt alert: historical true');
  t.ok(alerts.length >= 2 && alerts.every((r) => r.verified));
  await db.sql(`UPDATE webhook_targets SET enabled = false WHERE id = $1::uuid`, [alertsTarget]);
});
