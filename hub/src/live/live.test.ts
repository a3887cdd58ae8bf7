import t from 'tap';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { issuePartialToken, issueSessionToken } from '../auth/sessions.ts';
import { epochSeconds, signToken } from '../auth/tokens.ts';
import { testUser } from '../auth/auth.test-helper.ts';
import { users } from '../db/schema/users.ts';
import { adminTestContext, send, type Session } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createLiveBroker } from './broker.ts';
import { connect, refusedOverSocket, refusedStatus, type TestClient } from './live.test-helper.ts';
import { attachLiveChannel } from './upgrade.ts';
import { adminCollectorPartPath, adminCollectorPath, watchlistPartPath, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const db = ctx.database;
const broker = createLiveBroker(ctx.deps, { maxConnectionsPerUser: 5, pingIntervalMs: 150, statusPollMs: 3_600_000 });
await broker.start(db.listen.bind(db));
const server = serve({ fetch: ctx.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const channel = attachLiveChannel(server, ctx.deps, broker);
t.teardown(async () => {
  await broker.stop();
  channel.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const port = (server.address() as AddressInfo).port;
const WS = `ws://127.0.0.1:${port}/ws`;
const worker = createAlertWorker(ctx.deps, createWatchlistCache(ctx.deps));
const collector = await claimedCollector(ctx.deps, { config: { cameras: [{ id: 'gate-1', name: 'North gate' }] } });

const operator = await ctx.session('operator');
const admin = await ctx.session('admin');
const watchlist = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Live', priority: 'critical' })).json()) as { id: string };
await send(ctx, operator, 'POST', watchlistPartPath(watchlist.id, 'entries'), { plate: 'L1VE01', notes: 'seen at the docks' });

const open: TestClient[] = [];
t.teardown(() => open.forEach((c) => c.ws.close()));
/** A client that answers pings, like a dashboard. */
async function client(s: Session, extra: Record<string, string> = {}, answerPings = true): Promise<TestClient> {
  const c = await connect(WS, { cookie: s.client.jar.header(), ...extra });
  open.push(c);
  if (answerPings) c.ws.on('message', (d) => JSON.parse(d.toString()).type === 'ping' && c.send({ type: 'pong', payload: {} }));
  return c;
}

async function upload(plates: readonly string[]): Promise<void> {
  await uploadBatch(
    ctx.app,
    collector.apiKey,
    plates.map((text, i) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.88 }, timestamp: new Date(ctx.clock.now().getTime() - 30_000 + i).toISOString() }),
      fullScene: jpegLike(2000),
      plateCrop: jpegLike(500),
    })),
  );
  while ((await worker.runOnce()) > 0) {
    /* the worker's NOTIFY reaches the broker */
  }
}

t.test('upgrade: path, version and origin are refused over HTTP before upgrading', async (t) => {
  const viewer = await ctx.session('viewer');
  t.equal(await refusedStatus(`${WS}?v=2`, { cookie: viewer.client.jar.header() }), 400, 'an unknown protocol version');
  t.equal(await refusedStatus(`${WS}?v=2`, {}), 400, 'checked before the session');
  t.equal(await refusedStatus(WS, { origin: 'https://evil.example' }), 403, 'a foreign page is refused before the session is looked at');
  t.equal(await refusedStatus(WS, { cookie: viewer.client.jar.header(), origin: 'https://evil.example' }), 403, 'a foreign page cannot ride the cookie');
  t.equal(await refusedStatus(`ws://127.0.0.1:${port}/other`, { cookie: viewer.client.jar.header() }), 404);
  const c = await client(viewer, { origin: 'https://hub.example.test' });
  const hello = await c.next('connected');
  t.match(hello, { payload: { protocol_version: 1, feeds: ['alerts:*'], role: 'viewer' }, timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, id: /.+/ });
  t.same(Object.keys(hello).sort(), ['id', 'payload', 'timestamp', 'type'], 'the envelope, exactly');
  const v1 = await client(viewer, {}, true);
  t.ok(await v1.next('connected'), 'v=1 or no v');
});

t.test('no session or a bad one: upgraded, told AUTH_REQUIRED or AUTH_FAILED with a reason, closed 4401', async (t) => {
  const none = await refusedOverSocket(WS, {});
  t.same(none.error, { code: 'AUTH_REQUIRED', message: 'Not authenticated' }, 'no cookie');
  t.equal(none.close, 4401);
  t.equal(none.messages, 1, 'the error is all it gets: no connected, no feed');
  t.same((await refusedOverSocket(WS, { cookie: 'access_token=' })).error, { code: 'AUTH_REQUIRED', message: 'Not authenticated' }, 'an empty cookie');

  const forged = await refusedOverSocket(WS, { cookie: 'access_token=forged' });
  t.same(forged.error, { code: 'AUTH_FAILED', reason: 'invalid_token', message: 'Invalid token' }, 'a forged token');
  t.equal(forged.close, 4401);

  const u = await testUser(ctx, 'viewer', { enrolled: true });
  const partial = await refusedOverSocket(WS, { cookie: `access_token=${issuePartialToken(ctx.deps, u.user.id)}` });
  t.same(partial.error, { code: 'AUTH_FAILED', reason: '2fa_required', message: '2FA verification required' }, 'a partial session (second factor pending)');

  const past = epochSeconds(ctx.clock.now()) - 25 * 3600;
  const expired = signToken(authKeys(ctx.deps.config).sessionKey, { sub: u.user.id, type: 'access', iat: past, exp: past + 24 * 3600, tfa: past });
  t.same(
    (await refusedOverSocket(WS, { cookie: `access_token=${expired}` })).error,
    { code: 'AUTH_FAILED', reason: 'invalid_token', message: 'Invalid token' },
    'an expired session',
  );

  const good = `access_token=${issueSessionToken(ctx.deps, u.user.id, ctx.clock.now())}`;
  await db.db.update(users).set({ twofaEnrolled: false }).where(eq(users.id, u.user.id));
  t.same(
    (await refusedOverSocket(WS, { cookie: good })).error,
    { code: 'AUTH_FAILED', reason: '2fa_enrollment_required', message: '2FA enrollment required' },
    'a user who must enrol in 2FA',
  );
  await db.db.update(users).set({ isActive: false }).where(eq(users.id, u.user.id));
  t.same(
    (await refusedOverSocket(WS, { cookie: good })).error,
    { code: 'AUTH_FAILED', reason: 'user_inactive', message: 'User not found or inactive' },
    'a deactivated user',
  );
});

t.test('an alert reaches subscribed users only; detections:live gets the detection; payloads exactly per spec', async (t) => {
  const subscriber = await ctx.session('viewer');
  const bystander = await ctx.session('viewer');
  const watcher = await ctx.session('operator');
  await send(ctx, subscriber, 'POST', watchlistPartPath(watchlist.id, 'subscription'));
  const a = await client(subscriber);
  const b = await client(bystander);
  const w = await client(watcher);
  for (const c of [a, b, w]) await c.next('connected');
  w.send({ type: 'subscribe', payload: { feed: 'detections:live' } });
  t.match(await w.next('subscribed'), { payload: { feed: 'detections:live', success: true } });

  await upload(['L1VE01', 'NOTW4T']);
  const alert = await a.next('alert');
  t.same(Object.keys(alert.payload).sort(), ['alert_id', 'detection', 'detection_id', 'entry', 'plate_number', 'watchlist']);
  t.same(Object.keys(alert.payload.detection).sort(), ['camera_name', 'captured_at', 'collector_name', 'confidence', 'image_urls']);
  t.match(alert.payload, {
    plate_number: 'L1VE01',
    watchlist: { id: watchlist.id, name: 'Live', priority: 'critical' },
    entry: { notes: 'seen at the docks', added_by: operator.user.user.id },
    detection: { camera_name: 'North gate', confidence: 0.88, image_urls: { full: /\/api\/v1\/images\/[0-9a-f]{64}\?exp=/, crop: /sig=/ } },
  });
  t.equal(alert.id, `alert:${alert.payload.alert_id}`);
  const first = await w.next('detection');
  const second = await w.next('detection');
  t.same([first.payload.plate_number, second.payload.plate_number].sort(), ['L1VE01', 'NOTW4T']);
  t.same(Object.keys(first.payload).sort(), [
    'camera',
    'captured_at',
    'collector',
    'confidence',
    'direction',
    'id',
    'image_urls',
    'plate_normalized',
    'plate_number',
  ]);
  t.match(first.payload, { collector: { id: collector.collectorId, name: /^Site / }, camera: { id: 'gate-1', name: 'North gate' } });
  await sleep(300);
  t.same(b.all('alert'), [], 'an unsubscribed viewer receives nothing');
  t.same(w.all('alert'), [], 'nor an operator who is not subscribed');
  t.same(a.all('detection'), [], 'detections:live is off by default');
  t.equal(a.all('alert').length, 1, 'exactly once');

  // Narrowing to one watchlist: alerts:* off, alerts:{id} on.
  a.send({ type: 'unsubscribe', payload: { feed: 'alerts:*' } });
  t.match(await a.next('unsubscribed'), { payload: { feed: 'alerts:*', success: true } });
  await upload(['L1VE01']);
  await sleep(300);
  t.equal(a.all('alert').length, 1, 'no feed, no alert');
  a.send({ type: 'subscribe', payload: { feed: `alerts:${watchlist.id}` } });
  t.match(await a.next('subscribed'), { payload: { success: true } });
  await upload(['L1VE01']);
  t.ok(await a.next('alert'), 'alerts:{watchlist_id} delivers that watchlist');
});

t.test('feeds a user may not have: SUBSCRIPTION_DENIED, with the reason and the feed', async (t) => {
  const viewer = await ctx.session('viewer');
  const c = await client(viewer);
  await c.next('connected');
  c.send({ type: 'subscribe', payload: { feed: 'collectors:status' } });
  t.same(
    (await c.next('error')).payload,
    { code: 'SUBSCRIPTION_DENIED', reason: 'admin_only', message: 'collectors:status is for admins', feed: 'collectors:status' },
    'a viewer asking for the admin-only feed',
  );
  t.match(await c.next('subscribed'), { payload: { feed: 'collectors:status', success: false } });
  c.send({ type: 'subscribe', payload: { feed: `alerts:${watchlist.id}` } });
  const notSubscribed = (await c.next('error')).payload;
  t.equal(notSubscribed['code'], 'SUBSCRIPTION_DENIED');
  t.equal(notSubscribed['reason'], 'watchlist_not_subscribed');
  t.match(notSubscribed, { message: /subscribe to the watchlist first/, feed: `alerts:${watchlist.id}` });
  t.match(await c.next('subscribed'), { payload: { feed: `alerts:${watchlist.id}`, success: false } });
  c.send({ type: 'subscribe', payload: { feed: 'everything' } });
  const unknown = (await c.next('error')).payload;
  t.equal(unknown['code'], 'SUBSCRIPTION_DENIED', 'an unknown feed');
  t.equal(unknown['reason'], 'unknown_feed');
  t.equal(unknown['feed'], 'everything');
  t.match(await c.next('subscribed'), { payload: { feed: 'everything', success: false } });
  const a = await client(admin);
  t.match(await a.next('connected'), { payload: { feeds: ['alerts:*', 'collectors:status'] } }, 'admins get collector status by default');
  a.send({ type: 'subscribe', payload: { feed: 'collectors:status' } });
  t.match(await a.next('subscribed'), { payload: { feed: 'collectors:status', success: true } });
  t.same(a.all('error'), [], 'nothing denied to an admin');
});

t.test('malformed frames, unknown types and bad fields: INVALID_MESSAGE, and the connection stays', async (t) => {
  const c = await client(await ctx.session('viewer'));
  await c.next('connected');
  const told = async (): Promise<[unknown, unknown]> => {
    const { payload } = await c.next('error');
    return [payload['code'], payload['reason']];
  };
  c.send('not json');
  t.same(await told(), ['INVALID_MESSAGE', 'malformed'], 'malformed JSON');
  c.send('[1, 2]');
  t.same(await told(), ['INVALID_MESSAGE', 'malformed'], 'JSON but not an object');
  c.send({ payload: {} });
  t.same(await told(), ['INVALID_MESSAGE', 'malformed'], 'no type');
  c.ws.send(Buffer.from('{"type":"pong"}'), { binary: true });
  t.same(await told(), ['INVALID_MESSAGE', 'malformed'], 'a binary frame');
  c.send({ type: 'teleport', payload: {} });
  t.same(await told(), ['INVALID_MESSAGE', 'unknown_type'], 'an unknown message type');
  c.send({ type: 'subscribe' });
  t.same(await told(), ['INVALID_MESSAGE', 'bad_payload'], 'subscribe without a feed');
  c.send({ type: 'unsubscribe', payload: { feed: 42 } });
  t.same(await told(), ['INVALID_MESSAGE', 'bad_payload'], 'a feed that is not a string');
  t.same(Object.keys(c.all('error')[0]?.payload ?? {}).sort(), ['code', 'message', 'reason'], 'code, reason and message, nothing else');
  c.send({ type: 'subscribe', payload: { feed: 'detections:live' } });
  t.match(await c.next('subscribed'), { payload: { success: true } }, 'still connected and served');
});

t.test('at most 5 connections per user: the 6th gets an error and close code 4008', async (t) => {
  const user = await ctx.session('viewer');
  const five = [];
  for (let i = 0; i < 5; i++) five.push(await client(user));
  for (const c of five) await c.next('connected');
  const sixth = await connect(WS, { cookie: user.client.jar.header() });
  const refused = (await sixth.next('error')).payload;
  t.equal(refused['code'], 'RATE_LIMITED');
  t.equal(refused['reason'], 'too_many_connections');
  t.same(sixth.all('connected'), [], 'no acknowledgment');
  t.match(await sixth.closed, { code: 4008 });
  five[0]?.ws.close();
  await five[0]?.closed;
  await sleep(50);
  const again = await client(user);
  t.ok(await again.next('connected'), 'a slot freed by a close is usable again');
});

t.test('pings every interval; three missed pongs close the connection; answering keeps it', async (t) => {
  const user = await ctx.session('viewer');
  const silent = await client(user, {}, false);
  const polite = await client(user);
  t.match(await silent.next('ping'), { payload: { server_time: /Z$/ } });
  const closed = await silent.closed;
  t.equal(closed.code, 4001, `closed after three pings without a pong (${silent.all('ping').length} pings)`);
  t.equal(silent.all('ping').length, 3);
  t.equal(polite.ws.readyState, polite.ws.OPEN, 'the client that answers stays');
});

t.test('client messages: 10 a second, the excess refused; a client that keeps flooding is closed', async (t) => {
  const user = await ctx.session('viewer');
  // No automatic pongs here: the 80 pongs below answer no ping and count against the 10 a second.
  const c = await client(user, {}, false);
  await c.next('connected');
  for (let i = 0; i < 15; i++) c.send({ type: 'unsubscribe', payload: { feed: 'detections:live' } });
  await sleep(200);
  t.equal(c.all('unsubscribed').length, 10, '10 handled');
  t.same(
    c.all('error').map((e) => [e.payload['code'], e.payload['reason']]),
    Array.from({ length: 5 }, () => ['RATE_LIMITED', 'too_many_messages']),
    '5 refused with RATE_LIMITED',
  );
  for (let i = 0; i < 80; i++) c.send({ type: 'pong' });
  t.equal((await c.closed).code, 4029);
});

t.test("pongs answering pings do not spend the client's budget: on a stopped clock, 15 answered pings later it can still subscribe", async (t) => {
  const user = await ctx.session('viewer');
  const c = await client(user);
  await c.next('connected');
  // The injected clock does not move: a budget spent by pongs would never refill.
  for (let waited = 0; c.all('ping').length < 15 && c.ws.readyState === c.ws.OPEN && waited < 30_000; waited += 50) await sleep(50);
  t.equal(c.ws.readyState, c.ws.OPEN, `still open after ${c.all('ping').length} answered pings`);
  c.send({ type: 'unsubscribe', payload: { feed: 'alerts:*' } });
  t.match(await c.next('unsubscribed'), { payload: { feed: 'alerts:*', success: true } }, 'answered, not RATE_LIMITED');
  t.same(c.all('error'), [], 'no error at all');
});

t.test('collector status: admins hear a collector go offline after 3 missed heartbeats, and come back', async (t) => {
  const a = await client(admin);
  await a.next('connected');
  await db.sql(`UPDATE collectors SET last_heartbeat_at = $2 WHERE id = $1`, [collector.collectorId, ctx.clock.now().toISOString()]);
  await broker.pollCollectors();
  ctx.clock.advance(3 * 60_000 + 1);
  await broker.pollCollectors();
  const offline = await a.next('collector_status');
  t.match(offline.payload, { collector_id: collector.collectorId, status: 'offline', previous_status: 'online' });
  t.same(Object.keys(offline.payload).sort(), [
    'cameras_online',
    'cameras_total',
    'collector_id',
    'collector_name',
    'last_heartbeat_at',
    'previous_status',
    'status',
  ]);
  await db.sql(`UPDATE collectors SET last_heartbeat_at = $2 WHERE id = $1`, [collector.collectorId, ctx.clock.now().toISOString()]);
  await broker.pollCollectors();
  t.match((await a.next('collector_status')).payload, { status: 'online', previous_status: 'offline' });
  const viewer = await client(await ctx.session('viewer'));
  await viewer.next('connected');
  await sleep(100);
  t.same(viewer.all('collector_status'), [], 'viewers never see it');
});

t.test("collector status: the live feed and the collectors API agree at the boundary, on the collector's own interval", async (t) => {
  // A pushed 20 s interval (the hub default is 60 s): offline after 60 s, in both.
  await db.sql(`UPDATE collectors SET config = config || '{"heartbeat_interval_seconds": 20}'::jsonb, last_heartbeat_at = $2 WHERE id = $1`, [
    collector.collectorId,
    ctx.clock.now().toISOString(),
  ]);
  t.teardown(() => db.sql(`UPDATE collectors SET config = config - 'heartbeat_interval_seconds' WHERE id = $1`, [collector.collectorId]));
  const a = await client(admin);
  await a.next('connected');
  await broker.pollCollectors();
  const api = async (): Promise<unknown> =>
    ((await (await send(ctx, admin, 'GET', adminCollectorPath(collector.collectorId))).json()) as { connectivity: unknown }).connectivity;

  ctx.clock.advance(3 * 20_000);
  await broker.pollCollectors();
  t.equal(await api(), 'online', 'API: exactly 3 intervals is online');
  await sleep(100);
  t.same(a.all('collector_status'), [], 'live: still online, no change sent');

  ctx.clock.advance(1);
  await broker.pollCollectors();
  t.equal(await api(), 'offline', 'API: 1 ms later offline');
  t.match(
    (await a.next('collector_status')).payload,
    { collector_id: collector.collectorId, status: 'offline', previous_status: 'online' },
    'live: offline at the same instant',
  );
  await db.sql(`UPDATE collectors SET last_heartbeat_at = $2 WHERE id = $1`, [collector.collectorId, ctx.clock.now().toISOString()]);
  await broker.pollCollectors();
  t.equal(await api(), 'online');
  t.match((await a.next('collector_status')).payload, { status: 'online', previous_status: 'offline' });
});

t.test('collector status: suspending an online collector is offline in the API and on the feed alike; resuming brings it back', async (t) => {
  await db.sql(`UPDATE collectors SET last_heartbeat_at = $2 WHERE id = $1`, [collector.collectorId, ctx.clock.now().toISOString()]);
  const a = await client(admin);
  await a.next('connected');
  await broker.pollCollectors();
  const api = async (): Promise<unknown> =>
    ((await (await send(ctx, admin, 'GET', adminCollectorPath(collector.collectorId))).json()) as { connectivity: unknown }).connectivity;
  t.equal(await api(), 'online');

  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collector.collectorId, 'suspend'), {})).status, 200);
  t.teardown(() => db.sql(`UPDATE collectors SET status = 'active', suspended_at = NULL, suspend_reason = NULL WHERE id = $1`, [collector.collectorId]));
  await broker.pollCollectors();
  t.equal(await api(), 'offline', 'API: a suspended collector is offline, whatever its heartbeats');
  t.match((await a.next('collector_status')).payload, { collector_id: collector.collectorId, status: 'offline', previous_status: 'online' }, 'live: the same');

  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collector.collectorId, 'resume'))).status, 200);
  await broker.pollCollectors();
  t.equal(await api(), 'online');
  t.match((await a.next('collector_status')).payload, { status: 'online', previous_status: 'offline' }, 'live: back online on resume');
});

t.test('logout ends the live connection at the next ping', async (t) => {
  const user = await ctx.session('viewer');
  const c = await client(user);
  await c.next('connected');
  const out = await user.client.post('/auth/logout', {});
  t.ok(out.status < 400, `logout ${out.status}`);
  t.equal((await c.closed).code, 4401);
  t.same(c.all('error').at(-1)?.payload, { code: 'AUTH_FAILED', reason: 'session_ended', message: 'Session ended' }, 'told why before the close');
});
