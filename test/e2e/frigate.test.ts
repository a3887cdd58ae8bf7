/**
 * Issue 39 item 1, Frigate, end to end with real processes: the Frigate simulator publishes
 * real-shaped `frigate/events` messages (the adapter fixture) to a real mosquitto that asks for a
 * login, and serves drawn JPEG snapshots; a real appliance subscribes, keeps one read per event
 * and plate, fetches the snapshot, buffers and uploads to a real hub, where a watchlist raises
 * an alert. An event whose snapshot is gone still gives its read.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { applianceUnderTest, hubLinkedToml } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp } from './users-over-http.ts';
import { startMosquitto } from '../../scripts/simulators/mosquitto.ts';
import { frigateEventId, startFrigateSimulator } from '../../scripts/simulators/frigate.ts';
import { ALERTS_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../../hub/src/platform/http/paths.ts';

const PASSWORD = 'e2e frigate correct horse battery';
const BROKER_USER = 'frigate';
const BROKER_PASSWORD = 'broker-Pa55-frigate';

t.test('Frigate: simulator, mosquitto, appliance, hub, alert', { timeout: 480_000 }, async (t) => {
  const broker = await startMosquitto({ users: { [BROKER_USER]: BROKER_PASSWORD } });
  t.teardown(() => broker.close());
  const now = Date.now() - 3_000;
  const noSnapshot = frigateEventId(now + 2_000, 'nosnap');
  const frigate = await startFrigateSimulator({
    brokerUrl: broker.url,
    mqtt: { username: BROKER_USER, password: BROKER_PASSWORD },
    noSnapshot: (id) => id === noSnapshot,
  });
  t.teardown(() => frigate.close());

  const hub = await hubUnderTest(t, { beforeStart: (env) => createUserWithCli(env, 'op@e2e.test', 'operator', PASSWORD) });
  const operator = await signInOverHttp(hub.url, 'op@e2e.test', PASSWORD);
  const list = (await (await operator.post(WATCHLISTS_PATH, { name: 'Frigate wanted', priority: 'high' })).json()) as { id: string };
  const plates = { lpr: 'FRIG0001', subLabel: 'FRIGSUB2', noImage: 'FRIGNOI3', otherCamera: 'FRIGOTH4' };
  for (const plate of Object.values(plates)) t.equal((await operator.post(watchlistPartPath(list.id, 'entries'), { plate })).status, 201);
  t.equal((await operator.post(watchlistPartPath(list.id, 'subscription'))).status, 201);

  const appliance = await applianceUnderTest(
    t,
    hub.enrollment.api_key,
    hubLinkedToml(
      hub.url,
      '[[cameras]]',
      'id = "frigate-home"',
      'vendor = "frigate"',
      'mode = "pull"',
      'host = "127.0.0.1"',
      `port = ${frigate.port}`,
      `mqttUrl = "${broker.url}"`,
      `username = "${BROKER_USER}"`,
      `password = "${BROKER_PASSWORD}"`,
      'cameraIds = ["driveway", "front_gate"]',
      'backoffBaseMs = 200',
    ),
  );
  await appliance.start();
  t.teardown(traced('stop appliance', () => appliance.stop()));

  // Frigate publishes with QoS 0 and keeps nothing for a late subscriber: wait until the
  // appliance's subscription is in place (its camera ONLINE) before the cars pass.
  let online = false;
  for (let i = 0; i < 240 && !online; i++) {
    online = (await appliance.cameraStates().catch(() => ({}) as Record<string, string>))['frigate-home'] === 'ONLINE';
    if (!online) await sleep(250);
  }
  t.ok(online, 'the appliance subscribed to frigate/events');

  const lprEvent = await frigate.pass({ plate: plates.lpr, timeMs: now, camera: 'driveway', repeats: 4 });
  await frigate.pass({ plate: plates.subLabel, timeMs: now + 1_000, camera: 'front_gate', style: 'sub_label', eventId: frigateEventId(now + 1_000, 'sublab') });
  await frigate.pass({ plate: plates.noImage, timeMs: now + 2_000, camera: 'driveway', eventId: noSnapshot });
  await frigate.pass({ plate: plates.otherCamera, timeMs: now + 3_000, camera: 'back_yard', eventId: frigateEventId(now + 3_000, 'backyd') });

  type Alert = { plate_number: string; detection?: { camera_id?: string; camera?: { id?: string } } };
  let alerts: Alert[] = [];
  const wanted = [plates.lpr, plates.subLabel, plates.noImage];
  for (let i = 0; i < 240 && !wanted.every((p) => alerts.some((a) => a.plate_number === p)); i++) {
    alerts =
      ((await (await operator.get(`${ALERTS_PATH}?since=${encodeURIComponent(new Date(now - 60_000).toISOString())}`)).json()) as { data: Alert[] }).data ?? [];
    await sleep(250);
  }
  for (const plate of wanted)
    t.ok(
      alerts.some((a) => a.plate_number === plate),
      `alert raised for ${plate}`,
    );
  t.equal(alerts.filter((a) => a.plate_number === plates.lpr).length, 1, 'six messages carrying the plate of one event: one alert');
  t.notOk(
    alerts.some((a) => a.plate_number === plates.otherCamera),
    'a Frigate camera not listed in cameraIds is not taken',
  );
  const snapshots = frigate.snapshotRequests();
  t.equal(snapshots.filter((p) => p.includes(lprEvent)).length, 1, `the snapshot of one event fetched once (${JSON.stringify(snapshots)})`);
  t.ok(
    snapshots.some((p) => p.includes(noSnapshot)),
    'the missing snapshot was asked for; its read still alerted',
  );
  t.comment(`one alert as the hub lists it: ${JSON.stringify(alerts.find((a) => a.plate_number === plates.lpr) ?? null).slice(0, 400)}`);
});
