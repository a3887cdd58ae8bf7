/**
 * Health alerts on the live `collectors:status` feed (docs/live.md "Health alerts"): a real
 * WebSocket client of a real hub, a real heartbeat reporting a camera offline and then back,
 * the evaluator run on the injected clock, the broker's status poll run by hand.
 */
import t from 'tap';
import { HEALTH_HEARERS } from '../hearers.ts';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import type { HeartbeatCamera } from '@alpr/shared/protocol/collector';
import { adminTestContext, type Session } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { evaluateHealth } from '../health/evaluate.ts';
import { createLiveBroker } from './broker.ts';
import type { HealthAlertPayload } from './health-changes.ts';
import { connect, type Message, type TestClient } from './live.test-helper.ts';
import { attachLiveChannel } from './upgrade.ts';
import { HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';

const ctx = await adminTestContext(t);
// An hour between polls: only the test's own pollCollectors() calls look.
const broker = createLiveBroker(ctx.deps, { maxConnectionsPerUser: 5, pingIntervalMs: 60_000, statusPollMs: 3_600_000 });
await broker.start(ctx.database.listen.bind(ctx.database));
const server = serve({ fetch: ctx.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const channel = attachLiveChannel(server, ctx.deps, broker);
const open: TestClient[] = [];
t.teardown(async () => {
  open.forEach((c) => c.ws.close());
  await broker.stop();
  channel.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const WS = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
const admin = await ctx.session('admin');
const viewer = await ctx.session('viewer');

async function client(s: Session): Promise<TestClient> {
  const c = await connect(WS, { cookie: s.client.jar.header() });
  open.push(c);
  await c.next('connected');
  return c;
}

async function beat(apiKey: string, cameras: HeartbeatCamera[]): Promise<void> {
  const res = await ctx.app.request(HEARTBEAT_PATH, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ uptime_seconds: 100, queue_depth: 0, cameras_online: 0, config_version: 0, cameras }),
  });
  if (res.status !== 200) throw new Error(`heartbeat ${res.status}: ${await res.text()}`);
}

const offline: HeartbeatCamera = { id: 'gate-1', state: 'OFFLINE', last_success_at: null, last_error: 'connect ECONNREFUSED' };
const online: HeartbeatCamera = { id: 'gate-1', state: 'ONLINE', last_success_at: null };
const healthOf = (c: TestClient, collectorId: string): Array<Message<'health_alert'>> =>
  c.all('health_alert').filter((m) => (m.payload as unknown as HealthAlertPayload).alert.collector_id === collectorId);
const payload = (m: Message<'health_alert'>): HealthAlertPayload => m.payload as unknown as HealthAlertPayload;

t.test('a camera goes offline and comes back: admins hear one opened and one closed health_alert, viewers nothing', async (t) => {
  const site = await claimedCollector(ctx.deps, { config: { cameras: [{ id: 'gate-1', name: 'North gate' }] } });
  const a = await client(admin);
  const v = await client(viewer);
  await broker.pollCollectors();

  await beat(site.apiKey, [offline]);
  const first = await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
  t.equal(first.opened.length, 1, 'the evaluator opened camera_offline');
  await broker.pollCollectors();
  const opened = await a.next('health_alert');
  t.match(payload(opened), {
    event: 'opened',
    alert: { id: first.opened[0], kind: 'camera_offline', collector_id: site.collectorId, camera_id: 'gate-1', camera_name: 'North gate', closed_at: null },
  });
  t.same(Object.keys(payload(opened).alert).sort(), [
    'camera_id',
    'camera_name',
    'closed_at',
    'collector_id',
    'collector_name',
    'detail',
    'id',
    'kind',
    'message',
    'opened_at',
  ]);
  t.equal(opened.id, `health_alert:${first.opened[0]}:opened`, 'the envelope id names the alert and the event: the same from every hub process');
  t.equal(opened.timestamp, ctx.clock.now().toISOString(), 'stamped on the hub clock');

  // Still offline a minute later: the evaluator does nothing, the feed says nothing.
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [offline]);
  await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
  await broker.pollCollectors();
  await broker.pollCollectors();

  ctx.clock.advance(60_000);
  await beat(site.apiKey, [online]);
  const back = await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
  t.same(back.closed, first.opened, 'closed by the heartbeat saying ONLINE');
  await broker.pollCollectors();
  const closed = await a.next('health_alert');
  t.match(payload(closed), { event: 'closed', alert: { id: first.opened[0], kind: 'camera_offline', closed_at: ctx.clock.now().toISOString() } });
  await broker.pollCollectors();
  await sleep(100);
  t.same(
    healthOf(a, site.collectorId).map((m) => payload(m).event),
    ['opened', 'closed'],
    'exactly one of each',
  );
  t.same(v.all('health_alert'), [], 'a viewer never sees them');
  await ctx.database.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [site.collectorId]);
});

t.test('opened and closed between two looks: both told, the opening first', async (t) => {
  const site = await claimedCollector(ctx.deps, { config: { cameras: [{ id: 'gate-1', name: 'East gate' }] } });
  const a = await client(admin);
  await broker.pollCollectors();
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [offline]);
  const { opened } = await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [online]);
  t.same((await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS })).closed, opened);
  await broker.pollCollectors();
  const first = await a.next('health_alert');
  const second = await a.next('health_alert');
  t.same([payload(first).event, payload(second).event], ['opened', 'closed']);
  t.equal(payload(first).alert.id, opened[0]);
  t.equal(payload(second).alert.id, opened[0]);
  await broker.pollCollectors();
  await sleep(100);
  t.equal(healthOf(a, site.collectorId).length, 2, 'and not again');
  await ctx.database.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [site.collectorId]);
});

t.test('an admin who unsubscribes from collectors:status hears no health alerts', async (t) => {
  const site = await claimedCollector(ctx.deps);
  const a = await client(admin);
  a.send({ type: 'unsubscribe', payload: { feed: 'collectors:status' } });
  t.match(await a.next('unsubscribed'), { payload: { feed: 'collectors:status', success: true } });
  await broker.pollCollectors();
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [offline]);
  t.equal((await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS })).opened.length, 1);
  await broker.pollCollectors();
  await sleep(100);
  t.same(a.all('health_alert'), []);
  await ctx.database.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [site.collectorId]);
  await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
});

t.test("heard at once on the evaluator's notice, not at the next status poll", async (t) => {
  // The status poll here runs once an hour: only the NOTIFY of HEALTH_CHANNEL can bring it.
  const site = await claimedCollector(ctx.deps, { config: { cameras: [{ id: 'gate-1', name: 'West gate' }] } });
  const a = await client(admin);
  await broker.pollCollectors();
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [offline]);
  const { opened } = await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
  t.equal(opened.length, 1);
  const message = await a.next('health_alert');
  t.match(payload(message), { event: 'opened', alert: { id: opened[0], collector_id: site.collectorId } });
  ctx.clock.advance(60_000);
  await beat(site.apiKey, [online]);
  t.same((await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS })).closed, opened);
  t.match(payload(await a.next('health_alert')), { event: 'closed', alert: { id: opened[0] } }, 'the closing too');
  await broker.pollCollectors();
  await sleep(100);
  t.equal(healthOf(a, site.collectorId).length, 2, 'and the poll after tells neither again');
  await ctx.database.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [site.collectorId]);
  await evaluateHealth({ ...ctx.deps, hearers: HEALTH_HEARERS });
});
