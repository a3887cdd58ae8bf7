import t from 'tap';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { createOfflineQueue, discoveryMessage, lastPlateMessage, reconnectDelayMs, topicKey } from '@alpr/shared/mqtt/messages';
import type { OutgoingMessage } from '@alpr/shared/mqtt/messages';

const settings = { topicPrefix: 'alpr', discoveryPrefix: 'homeassistant' };
const camera = { collectorId: 'c0ffee00-1111', collectorName: 'North site', cameraId: 'gate/1 #a', cameraName: 'Gate' };
const event = (n: number): OutgoingMessage => ({ kind: 'alert', topic: 'alpr/alerts', payload: String(n), qos: 1, retain: false });

t.test('topics are safe and stable per camera', async (t) => {
  t.equal(topicKey('gate/1 #a+'), 'gate_1__a_', 'no /, #, + or spaces in a topic level');
  const d = discoveryMessage(settings, camera);
  t.equal(d.topic, 'homeassistant/sensor/alpr_c0ffee00-1111_gate_1__a/config');
  t.ok(d.retain, 'discovery is retained');
  t.match(JSON.parse(d.payload), { unique_id: 'alpr_c0ffee00-1111_gate_1__a', state_topic: 'alpr/cameras/c0ffee00-1111_gate_1__a/last_plate' });
  const last = lastPlateMessage(settings, camera, { plate: 'AB12CDE', capturedAt: '2026-11-27T06:00:00.000Z', confidence: 0.9, detectionId: '7' });
  t.same([last.topic, last.retain, last.qos], ['alpr/cameras/c0ffee00-1111_gate_1__a/last_plate', true, 1]);
  t.match(JSON.parse(last.payload), { plate: 'AB12CDE', alert: false });
});

t.test('offline queue: events in order up to the cap, retained newest per topic', async (t) => {
  const queue = createOfflineQueue(3);
  t.same(
    [1, 2, 3, 4, 5].map((n) => queue.push(event(n)).dropped),
    [0, 0, 0, 1, 1],
    'the oldest events dropped beyond 3',
  );
  queue.push({ kind: 'last_plate', topic: 'alpr/cameras/x/last_plate', payload: 'old', qos: 1, retain: true });
  queue.push({ kind: 'last_plate', topic: 'alpr/cameras/x/last_plate', payload: 'new', qos: 1, retain: true });
  t.equal(queue.size, 4);
  t.same(
    queue.drain().map((m) => m.payload),
    ['new', '3', '4', '5'],
  );
  t.equal(queue.size, 0);
});

t.test('reconnect backoff: 1 s doubling to 60 s', async (t) => {
  t.same(
    [0, 1, 2, 5, 6, 7, 50].map((n) => reconnectDelayMs(n, 1_000, 60_000)),
    [1_000, 2_000, 4_000, 32_000, 60_000, 60_000, 60_000],
  );
});

const PIN = 'ab'.repeat(32);

t.test('configuration from the environment', async (t) => {
  t.match(
    loadMqttOutConfig({ HUB_MQTT_URL: 'mqtts://b', HUB_MQTT_TLS_FINGERPRINT: `${'0a:'.repeat(31)}0A` }),
    { tlsFingerprint: `${'0A:'.repeat(31)}0A`, verifyTls: true },
    'a pin, colons and case as given, kept in one spelling',
  );
  t.match(loadMqttOutConfig({ HUB_MQTT_URL: 'mqtts://b', HUB_MQTT_TLS_FINGERPRINT: PIN }), { tlsFingerprint: `${'AB:'.repeat(31)}AB` }, 'a pin without colons');
  t.equal(loadMqttOutConfig({}), undefined, 'off without HUB_MQTT_URL');
  t.match(loadMqttOutConfig({ HUB_MQTT_URL: 'mqtts://broker.lan:8883' }), {
    topicPrefix: 'alpr',
    detections: false,
    discovery: true,
    verifyTls: true,
    queueMax: 1000,
  });
  for (const [what, env] of [
    ['an http URL', { HUB_MQTT_URL: 'http://broker' }],
    ['a wildcard prefix', { HUB_MQTT_URL: 'mqtt://b', HUB_MQTT_TOPIC_PREFIX: 'alpr/#' }],
    ['detections maybe', { HUB_MQTT_URL: 'mqtt://b', HUB_MQTT_DETECTIONS: 'maybe' }],
    ['a short fingerprint', { HUB_MQTT_URL: 'mqtts://b', HUB_MQTT_TLS_FINGERPRINT: 'AB:CD' }],
    ['a pin with verification off', { HUB_MQTT_URL: 'mqtts://b', HUB_MQTT_TLS_FINGERPRINT: PIN, HUB_MQTT_TLS_VERIFY: 'off' }],
    ['a pin beside a CA file', { HUB_MQTT_URL: 'mqtts://b', HUB_MQTT_TLS_FINGERPRINT: PIN, HUB_MQTT_CA_FILE: '/etc/ca.pem' }],
    ['a pin on plain mqtt', { HUB_MQTT_URL: 'mqtt://b', HUB_MQTT_TLS_FINGERPRINT: PIN }],
  ] as const) {
    t.throws(() => loadMqttOutConfig(env), `${what}: refused at start`);
  }
});
