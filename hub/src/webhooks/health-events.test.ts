/**
 * Health alerts to webhook targets (docs/webhooks.md "Health events"): the real evaluator
 * opens and closes camera_offline alerts of two sites reported by their heartbeats over
 * HTTP; each is delivered once as health.opened and once as health.closed, signed, to the
 * targets that asked for `health` and whose filter fits (a collector filter narrows; a plate
 * filter hears none; an alert-only target hears none; a site filter hears its collectors'). Re-evaluating queues nothing again.
 */
import t from 'tap';
import { HEALTH_HEARERS } from '../hearers.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { evaluateHealth } from '../health/evaluate.ts';
import { newSite } from '../health/health.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createSite, setCollectorSite } from '../sites/manage.ts';
import { createTarget } from './targets.ts';
import { startReceiver, type Receiver } from './webhooks.test-helper.ts';
import { createWebhookWorker } from './worker.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent'), config: hub.deps.config };
const health = { ...ctx, config: { heartbeatSeconds: 60 }, hearers: HEALTH_HEARERS };
const north = await newSite(hub, clock, 'North gate');
const south = await newSite(hub, clock, 'South gate');

// The south gate moved to a site of its own: a target kept to that site hears its health only.
const southSite = await createSite(db, { name: 'South estate' });
await setCollectorSite(db, south.id, southSite.id);

async function receiverFor(name: string, events: ('alert' | 'health')[], filter: Record<string, string | string[]> = {}): Promise<Receiver> {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { secret } = await createTarget(ctx, { name, url: receiver.url, events, filter, enabled: true });
  receiver.secret = secret;
  return receiver;
}
const everything = await receiverFor('Pager', ['health']);
const southOnly = await receiverFor('South contractor', ['health'], { collector_id: south.id });
const plates = await receiverFor('Gate opener', ['alert', 'health'], { plate_pattern: 'AB*' });
const alertsOnly = await receiverFor('Alerts feed', ['alert']);
const southEstate = await receiverFor('South estate manager', ['health'], { site_ids: [southSite.id] });

const worker = createWebhookWorker(ctx);
async function deliverAll(): Promise<void> {
  while ((await worker.runOnce()) > 0) {
    /* until the queue is empty */
  }
}
const types = (r: Receiver) => r.received.map((m) => `${m.body.type} ${(m.body.data['collector'] as { name: string }).name}`).sort();

t.test('opened and closed, once each, to the targets that asked', async (t) => {
  for (const site of [north, south]) await site.beat([{ id: 'cam-1', name: 'Lane 1', state: 'OFFLINE', last_success_at: null }]);
  const first = await evaluateHealth(health);
  t.equal(first.opened.length, 2, 'two camera_offline alerts opened');
  await deliverAll();
  t.same(types(everything), ['health.opened North gate', 'health.opened South gate']);
  t.same(types(southOnly), ['health.opened South gate'], 'a collector filter narrows');
  t.same(types(southEstate), ['health.opened South gate'], "a site filter narrows to its collectors' health");
  t.same(plates.received, [], 'a plate filter hears no health event (it has no plate)');
  t.same(alertsOnly.received, [], 'an alert-only target hears none');
  const opened = everything.received.find((m) => m.body.data['kind'] === 'camera_offline');
  t.ok(opened?.verified, 'signed with the target secret');
  t.match(opened?.body.data, { kind: 'camera_offline', closed_at: null, camera: { id: 'cam-1', name: 'Lane 1' } });
  t.notOk('plate' in (opened?.body.data ?? {}), 'no plate in a health event');

  clock.advance(60_000);
  for (const site of [north, south]) await site.beat([{ id: 'cam-1', name: 'Lane 1', state: 'OFFLINE', last_success_at: null }]);
  await evaluateHealth(health);
  await deliverAll();
  t.equal(everything.received.length, 2, 'still open a minute later: nothing sent again');

  clock.advance(60_000);
  await north.beat([{ id: 'cam-1', name: 'Lane 1', state: 'ONLINE', last_success_at: clock.now().toISOString() }]);
  await south.beat([{ id: 'cam-1', name: 'Lane 1', state: 'ONLINE', last_success_at: clock.now().toISOString() }]);
  t.equal((await evaluateHealth(health)).closed.length, 2, 'both closed');
  await deliverAll();
  t.same(types(everything), ['health.closed North gate', 'health.closed South gate', 'health.opened North gate', 'health.opened South gate']);
  t.same(types(southOnly), ['health.closed South gate', 'health.opened South gate']);
  t.same(types(southEstate), ['health.closed South gate', 'health.opened South gate']);
  t.ok(
    everything.received.filter((m) => m.body.type === 'health.closed').every((m) => typeof m.body.data['closed_at'] === 'string'),
    'a closed event carries when',
  );
  t.equal(new Set(everything.received.map((m) => m.id)).size, 4, 'four deliveries, four message ids');
  await evaluateHealth(health);
  await deliverAll();
  t.equal(
    everything.received.length + southOnly.received.length + southEstate.received.length + plates.received.length + alertsOnly.received.length,
    8,
    'nothing more',
  );
});
