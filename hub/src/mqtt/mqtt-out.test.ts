/**
 * MQTT out against a real mosquitto (docs/mqtt.md): a watched plate's alert, its camera's
 * retained last plate and Home Assistant discovery reach a subscriber; a login and TLS (a
 * self-signed broker certificate trusted by its file) work; a wrong password never reaches the
 * broker while ingest and alerting go on; a broker that goes down and comes back gets every
 * alert raised meanwhile and after, and ingest answers throughout.
 */
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import type { MqttClient } from 'mqtt';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { startMqttOut } from './run.ts';
import { mqttTestBroker, mqttTestHub, until } from './mqtt.test-helper.ts';

// Every watched plate listed before the first upload: the worker's watchlist cache is built once.
const { db, hub, log, ctx, raise } = await mqttTestHub(t, 'MQTT wanted', ['MQTT001', 'MQTTBAD2', 'MQTTDWN3', 'MQTTDWN4', 'MQTTUPP5']);

const cert = generateSelfSignedCertificate({ names: ['localhost', '127.0.0.1'], now: new Date() });
// Persistence on: the subscriber of the restart test keeps its session across the restart.
const broker = await mqttTestBroker(t, { users: { hub: 'hub-Pa55-mqtt', ha: 'ha-Pa55-mqtt' }, tls: cert, persistence: true });
const dir = mkdtempSync(join(tmpdir(), 'alpr-mqtt-out-'));
writeFileSync(join(dir, 'ca.pem'), cert.certPem);
writeFileSync(join(dir, 'password'), 'hub-Pa55-mqtt\n');

/**
 * Home Assistant's side: a subscriber that keeps every message it gets. `sessionId`: a
 * persistent session (clean: false) under that client id, which the broker keeps across its
 * restart with the QoS 1 messages that arrive while the subscriber reconnects.
 */
async function subscriber(sessionId?: string): Promise<{ client: MqttClient; got: Array<{ topic: string; payload: string; retain: boolean }> }> {
  const got: Array<{ topic: string; payload: string; retain: boolean }> = [];
  const session = sessionId ? { clientId: sessionId, clean: false } : {};
  const client = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-mqtt', reconnectPeriod: 200, ...session });
  client.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString('utf8'), retain: packet.retain }));
  await client.subscribeAsync(['alpr/#', 'homeassistant/#'], { qos: 1 });
  return { client, got };
}

t.test('alert, retained last plate and discovery over TLS with a password file', async (t) => {
  const config = loadMqttOutConfig({
    HUB_MQTT_URL: broker.tlsUrl,
    HUB_MQTT_USERNAME: 'hub',
    HUB_MQTT_PASSWORD_FILE: join(dir, 'password'),
    HUB_MQTT_CA_FILE: join(dir, 'ca.pem'),
    HUB_MQTT_DETECTIONS: 'on',
  });
  if (!config) throw new Error('no config');
  const out = await startMqttOut({ db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config }, config);
  t.teardown(() => out.stop());
  const ha = await subscriber();
  t.teardown(() => ha.client.endAsync());
  await until(() => out.stats().connected, 'the hub connected over TLS');

  await raise(['MQTT001']);
  await until(() => ha.got.some((m) => m.topic === 'alpr/alerts'), 'the alert');
  const alert = JSON.parse(ha.got.find((m) => m.topic === 'alpr/alerts')?.payload ?? '{}') as { plate_number?: string; watchlist?: { name?: string } };
  t.match(alert, { plate_number: 'MQTT001', watchlist: { name: 'MQTT wanted' } }, 'the alert payload');
  await until(() => ha.got.some((m) => m.topic === 'alpr/detections'), 'the detection');
  const discovery = ha.got.find((m) => m.topic.startsWith('homeassistant/sensor/alpr_') && m.topic.endsWith('/config'));
  t.ok(discovery, 'a discovery config for the camera');
  const config0 = JSON.parse(discovery?.payload ?? '{}') as Record<string, unknown>;
  t.match(config0, { availability_topic: 'alpr/status', value_template: '{{ value_json.plate }}', state_topic: /^alpr\/cameras\/.+\/last_plate$/ });
  const stateTopic = String(config0['state_topic']);

  // A client that connects later gets the retained ones at once: what Home Assistant does on start.
  const late = await subscriber();
  t.teardown(() => late.client.endAsync());
  await until(
    () => late.got.some((m) => m.topic === stateTopic) && late.got.some((m) => m.topic === discovery?.topic) && late.got.some((m) => m.topic === 'alpr/status'),
    'retained messages',
  );
  t.match(JSON.parse(late.got.find((m) => m.topic === stateTopic)?.payload ?? '{}'), { plate: 'MQTT001', alert: true }, 'retained last plate');
  t.ok(late.got.find((m) => m.topic === stateTopic)?.retain, 'the last plate is retained');
  t.equal(late.got.find((m) => m.topic === 'alpr/status')?.payload, 'online', 'availability: online');
  t.notOk(
    late.got.some((m) => m.topic === 'alpr/alerts'),
    'alerts are events, never retained',
  );
});

t.test('a wrong password: nothing published, ingest and alerting go on', async (t) => {
  const config = loadMqttOutConfig({ HUB_MQTT_URL: broker.url, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'wrong-password' });
  if (!config) throw new Error('no config');
  const out = await startMqttOut({ db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config }, config);
  t.teardown(() => out.stop());
  const ids = await raise(['MQTTBAD2']);
  t.equal(ids.length, 1, 'the batch was stored');
  await until(() => out.stats().queued >= 1, 'the alert waits in the queue');
  t.equal(out.stats().connected, false, 'the broker refused the login');
});

t.test('broker down, then back: no alert lost, ingest never blocked', async (t) => {
  const config = loadMqttOutConfig({ HUB_MQTT_URL: broker.url, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'hub-Pa55-mqtt' });
  if (!config) throw new Error('no config');
  // Tests do not wait a minute: reconnect fast.
  const out = await startMqttOut(
    { db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config },
    { ...config, backoffBaseMs: 100, backoffCapMs: 400 },
  );
  t.teardown(() => out.stop());
  await until(() => out.stats().connected, 'connected');
  // Subscribed before the broker goes: after its restart the hub and this subscriber reconnect
  // in either order, and what the hub publishes first waits in the subscriber's session.
  const ha = await subscriber('ha-restart-test');
  t.teardown(() => ha.client.endAsync());

  await broker.stop();
  await until(() => !out.stats().connected, 'the hub saw the broker go');
  const during = await raise(['MQTTDWN3', 'MQTTDWN4']);
  t.equal(during.length, 2, 'ingest and alerting answered while the broker was down');
  await until(() => out.stats().queued >= 2, 'the alerts wait');

  await broker.start();
  await until(() => out.stats().connected, 'reconnected');
  await raise(['MQTTUPP5']);
  const plates = (): string[] => ha.got.filter((m) => m.topic === 'alpr/alerts').map((m) => (JSON.parse(m.payload) as { plate_number: string }).plate_number);
  await until(() => ['MQTTDWN3', 'MQTTDWN4', 'MQTTUPP5'].every((p) => plates().includes(p)), 'every alert');
  t.same(
    plates().filter((p) => p.startsWith('MQTT')),
    ['MQTTDWN3', 'MQTTDWN4', 'MQTTUPP5'],
    'the queued alerts in order, then the new one, each once',
  );
  t.ok(out.stats().reconnects >= 1, 'a reconnect counted');
});
