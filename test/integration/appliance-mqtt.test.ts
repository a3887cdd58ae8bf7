/**
 * The appliance's MQTT out (docs/mqtt.md "From the appliance") end to end: a simulated
 * vendor_a camera pushes to the whole appliance (createAppliance: real SQLite buffer, pipeline,
 * local server), claimed by a real hub in this process, with a real mosquitto on loopback.
 * Every read the buffer commits reaches the broker as a detection, sets its camera's retained
 * last plate, the camera's discovery config is retained, and the appliance's /metrics count
 * them. With the broker down, every read is still buffered and uploaded to the hub.
 */
import t, { type Test } from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { parseExposition, valueOf } from '../../shared/src/metrics/exposition.test-helper.ts';
import { startMosquitto } from '../../scripts/simulators/mosquitto.ts';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { readEnvironment } from '../../appliance/src/config/load.ts';
import { createLog } from '../../appliance/src/log.ts';
import { createAppliance } from '../../appliance/src/runtime/appliance.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { claimOverHttp, startTestHub, type ClaimedAppliance } from './hub-for-appliance.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const hub = await startTestHub(t);
// The appliance stamps reads with the real clock; the hub refuses captures a day ahead of its own.
hub.ctx.clock.set(new Date());
const broker = await startMosquitto({ users: { appliance: 'app-Pa55-mqtt', ha: 'ha-Pa55-mqtt' } });
t.teardown(() => broker.close());
const MAC = '00:11:22:aa:bb:cc';

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

async function startAppliance(t: Test, claimed: ClaimedAppliance, mqttToml: string) {
  const toml = [
    '[setup]',
    'host = "127.0.0.1"',
    'port = 0',
    '[uplink]',
    'window_seconds = 30',
    'window_seconds_by_camera_type = { vendor_a = 5 }',
    mqttToml,
    '[[cameras]]',
    'id = "gate"',
    'name = "North gate"',
    'vendor = "vendor_a"',
    'mode = "push"',
    'host = "127.0.0.1"',
    `mac = "${MAC}"`,
    'timezone = "UTC"',
    '',
  ].join('\n');
  await writeFile(join(claimed.dataDir, 'appliance.toml'), toml);
  const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: claimed.dataDir }), {
    identity: fixedIdentity(claimed.serial),
    log: createLog(process.env['MQTT_TEST_LOG'] ?? 'silent'),
    diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
  });
  t.teardown(() => appliance.stop());
  return (await appliance.start()).url;
}

async function pushReads(t: Test, base: string, count: number, seed: number) {
  const camera = await startVendorACamera({
    mode: 'push',
    pushUrl: `${base}${pushPath('vendor_a')}`,
    pushFormat: 'mixed',
    mac: MAC,
    ratePerSecond: 0,
    seed,
    cropBytes: 1500,
    sceneBytes: 3000,
    pushRetryDelayMs: 10,
  });
  t.teardown(() => camera.close());
  camera.addReads(count);
  await camera.idle();
  return camera;
}

/** Nothing waits in the buffer any more: every committed read is on the hub. */
async function drained(base: string): Promise<boolean> {
  const metrics = parseExposition(await (await fetch(`${base}/metrics`)).text());
  return (
    valueOf(metrics, 'alpr_appliance_buffer_detections', { state: 'pending' }) === 0 &&
    valueOf(metrics, 'alpr_appliance_buffer_detections', { state: 'in_flight' }) === 0
  );
}

const hubIds = async (collectorId: string): Promise<string[]> =>
  (await hub.ctx.db.sql<{ detection_id: string }>('SELECT detection_id FROM detections WHERE collector_id = $1', [collectorId]))
    .map((r) => r.detection_id)
    .sort();

async function subscribe(t: Test) {
  const got: Array<{ topic: string; payload: string; retain: boolean }> = [];
  const client = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-mqtt' });
  t.teardown(() => client.endAsync());
  client.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString('utf8'), retain: packet.retain }));
  await client.subscribeAsync(['site/#', 'homeassistant/#'], { qos: 1 });
  return got;
}

t.test('camera push to broker: each committed read a detection, a retained last plate, retained discovery, counted', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const got = await subscribe(t);
  const mqttToml = [
    '[mqtt]',
    `url = "${broker.url}"`,
    'username = "appliance"',
    'password = "app-Pa55-mqtt"',
    'topic_prefix = "site"',
    'device_name = "lan-site"',
    '',
  ].join('\n');
  const base = await startAppliance(t, claimed, mqttToml);
  const camera = await pushReads(t, base, 6, 21);
  t.same(camera.undelivered, [], 'the camera got a 2xx for every post');

  const stored = camera.delivered.filter((d) => !d.unknown).length;
  t.ok(stored >= 1, `${stored} readable reads`);
  await until(async () => (await drained(base)) && (await hubIds(claimed.enrollment.collector_id)).length >= 1, 'the buffer drained to the hub');
  const onHub = await hubIds(claimed.enrollment.collector_id);
  const detections = () =>
    got
      .filter((m) => m.topic === 'site/detections')
      .map((m) => JSON.parse(m.payload) as { id: string; plate_number: string; camera: { id: string; name: string } });
  const published = () => new Set(detections().map((d) => d.id));
  await until(() => onHub.every((id) => published().has(id)), 'a detection message for every read on the hub');
  // A better read of the same plate replaces a buffered one after both were published: the
  // broker may hold a read more than the hub, never one fewer.
  t.ok(
    onHub.every((id) => published().has(id)),
    `every read the hub holds was published (${onHub.length} on the hub, ${published().size} published)`,
  );
  t.match(detections()[0], { camera: { id: 'gate', name: 'North gate' } }, 'the camera named as configured');
  t.ok(
    got.filter((m) => m.topic === 'site/detections').every((m) => !m.retain),
    'detections are events, never retained',
  );

  // A subscriber that connects later (Home Assistant on start) gets the retained ones at once.
  const late = await subscribe(t);
  const lastPlate = 'site/cameras/lan-site_gate/last_plate';
  const discoveryTopic = 'homeassistant/sensor/alpr_lan-site_gate/config';
  await until(() => late.some((m) => m.topic === lastPlate) && late.some((m) => m.topic === discoveryTopic), 'retained last plate and discovery');
  const last = late.find((m) => m.topic === lastPlate);
  t.ok(last?.retain, 'the last plate is retained');
  const lastPayload = JSON.parse(last?.payload ?? '{}') as { plate: string; detection_id: string; alert: boolean };
  t.ok(
    detections().some((d) => d.id === lastPayload.detection_id && d.plate_number === lastPayload.plate),
    'the last plate is one of the published reads',
  );
  t.equal(lastPayload.alert, false, 'the appliance raises no alerts');
  const discovery = late.find((m) => m.topic === discoveryTopic);
  t.ok(discovery?.retain, 'discovery is retained');
  t.match(JSON.parse(discovery?.payload ?? '{}'), {
    name: 'North gate last plate',
    state_topic: lastPlate,
    availability_topic: 'site/status',
    device: { name: 'lan-site' },
  });
  t.notOk(
    got.some((m) => m.topic === 'site/alerts'),
    'no alerts from the appliance',
  );

  const metrics = parseExposition(await (await fetch(`${base}/metrics`)).text());
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_enabled'), 1);
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_connected'), 1);
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_messages_published_total', { kind: 'detection' }), detections().length, 'each published detection counted');
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_messages_published_total', { kind: 'discovery' }), 1, 'one camera, one discovery config');
});

t.test('broker down: every read still buffered and uploaded; MQTT waits and counts the failures', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const down = await startMosquitto();
  const downUrl = down.url;
  await down.close();
  const base = await startAppliance(t, claimed, `[mqtt]\nurl = "${downUrl}"\ntopic_prefix = "site"\nqueue_max = 2\n`);
  const camera = await pushReads(t, base, 6, 22);
  t.same(camera.undelivered, [], 'the camera got a 2xx for every post');
  const readable = camera.delivered.filter((d) => !d.unknown).length;
  t.ok(readable >= 1, `${readable} readable reads`);
  await until(async () => (await drained(base)) && (await hubIds(claimed.enrollment.collector_id)).length >= 1, 'the buffer drained to the hub');
  const metrics = parseExposition(await (await fetch(`${base}/metrics`)).text());
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_connected'), 0, 'not connected');
  t.ok(valueOf(metrics, 'alpr_appliance_mqtt_connection_failures_total') >= 1, 'the failed connection counted');
  t.ok(valueOf(metrics, 'alpr_appliance_mqtt_queue_depth') >= 1, 'what waits for the broker is bounded and visible');
  t.equal(valueOf(metrics, 'alpr_appliance_mqtt_messages_published_total', { kind: 'detection' }), 0, 'nothing published');
});
