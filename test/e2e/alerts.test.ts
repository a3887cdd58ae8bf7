/**
 * Issue 11 end to end with real processes: a camera pushes a watched plate to a real
 * appliance, which uploads it to a real hub (its alert worker inside); a subscribed
 * operator's WebSocket receives the alert, a detections:live subscriber the detection, an
 * unsubscribed viewer nothing; a client that was disconnected finds the alert through
 * GET /api/v1/alerts?since=.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { pushPlate } from './camera-push.ts';
import { connect, type TestClient } from '../../hub/src/live/live.test-helper.ts';
import { applianceUnderTest, hubLinkedToml } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp } from './users-over-http.ts';
import { ALERTS_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../../hub/src/platform/http/paths.ts';

const PASSWORD = 'e2e alerts correct horse battery';

t.test('a watched plate from a camera reaches the subscribed operator live, and the missed one by since', { timeout: 240_000 }, async (t) => {
  const hub = await hubUnderTest(t, {
    beforeStart: async (env) => {
      for (const [email, role] of [
        ['op@e2e.test', 'operator'],
        ['viewer@e2e.test', 'viewer'],
        ['live@e2e.test', 'viewer'],
      ] as const) {
        await createUserWithCli(env, email, role, PASSWORD);
      }
    },
  });
  const operator = await signInOverHttp(hub.url, 'op@e2e.test', PASSWORD);
  const viewer = await signInOverHttp(hub.url, 'viewer@e2e.test', PASSWORD);
  const watcher = await signInOverHttp(hub.url, 'live@e2e.test', PASSWORD);
  const list = (await (await operator.post(WATCHLISTS_PATH, { name: 'E2E wanted', priority: 'high' })).json()) as { id: string };
  t.equal((await operator.post(watchlistPartPath(list.id, 'entries'), { plate: 'E2EW4TCH', notes: 'end to end' })).status, 201);
  t.equal((await operator.post(watchlistPartPath(list.id, 'entries'), { plate: 'E2EM155D' })).status, 201);
  t.equal((await operator.post(watchlistPartPath(list.id, 'subscription'))).status, 201);

  const ws = hub.url.replace('http', 'ws') + '/ws?v=1';
  const clients: TestClient[] = [];
  t.teardown(() => clients.forEach((c) => c.ws.close()));
  const open = async (cookie: string): Promise<TestClient> => {
    const c = await connect(ws, { cookie });
    clients.push(c);
    await c.next('connected');
    return c;
  };
  const opLive = await open(operator.cookie);
  const viewerLive = await open(viewer.cookie);
  const detectionsLive = await open(watcher.cookie);
  detectionsLive.send({ type: 'subscribe', payload: { feed: 'detections:live' } });
  t.match(await detectionsLive.next('subscribed'), { payload: { success: true } });

  const appliance = await applianceUnderTest(t, hub.enrollment.api_key, hubLinkedToml(hub.url));
  await appliance.start();
  t.teardown(traced('stop appliance', () => appliance.stop()));

  const sent = Date.now();
  t.equal(await pushPlate(appliance.url, 'E2EW4TCH'), 200, 'the appliance took the camera push');
  const alert = await opLive.next('alert', 60_000);
  t.comment(`camera push to the operator's screen: ${Date.now() - sent} ms (the appliance batches for up to 5 s)`);
  t.match(alert.payload, {
    plate_number: 'E2EW4TCH',
    watchlist: { id: list.id, priority: 'high' },
    entry: { notes: 'end to end' },
    detection: { image_urls: {} },
  });
  const detection = await detectionsLive.next('detection', 30_000);
  t.match(detection.payload, { plate_number: 'E2EW4TCH', collector: { name: 'E2E site' } });
  await sleep(500);
  t.same(viewerLive.all('alert'), [], 'the unsubscribed viewer received nothing');
  t.same(detectionsLive.all('alert'), [], 'nor the detections watcher (not subscribed to the watchlist)');

  // The operator's dashboard drops off; another watched plate passes; it catches up on return.
  // (Another plate: the same one within 30 s is the appliance's duplicate, by design.)
  const lastSeen = alert.timestamp;
  opLive.ws.close();
  await opLive.closed;
  t.equal(await pushPlate(appliance.url, 'E2EM155D'), 200);
  await detectionsLive.next('detection', 60_000);
  let missed: Array<{ alert_id: string; plate_number: string }> = [];
  for (let i = 0; i < 50 && missed.length < 2; i++) {
    const page = (await (await operator.get(`${ALERTS_PATH}?since=${encodeURIComponent(new Date(Date.parse(lastSeen) - 60_000).toISOString())}`)).json()) as {
      data: typeof missed;
    };
    missed = page.data;
    if (missed.length < 2) await sleep(200);
  }
  t.equal(missed.length, 2, 'both alerts are in the catch-up list');
  t.ok(
    missed.some((m) => m.alert_id === alert.payload.alert_id),
    'the one seen live is there too (clients drop repeats by alert_id)',
  );
  t.ok(
    missed.some((m) => m.plate_number === 'E2EM155D'),
    'and the one missed while disconnected',
  );
  t.equal(new Set(missed.map((m) => m.alert_id)).size, 2, 'two distinct alerts, each once');
});
