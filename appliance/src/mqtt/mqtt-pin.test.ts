/**
 * The appliance's `[mqtt] tls_fingerprint` (docs/mqtt.md "From the appliance") against a real
 * mosquitto on TLS with a self-signed certificate made here: the right pin (lower case, no
 * colons, as an installer may paste it) connects without a CA file and a committed detection
 * reaches a subscriber; a wrong pin never connects, logs both fingerprints, never logs the
 * password, and moves the failure counter the appliance's /metrics serves.
 */
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { Registry } from 'prom-client';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { startMosquitto } from '../../../scripts/simulators/mosquitto.ts';
import { sampleDetection } from '../buffer/buffer.test-helper.ts';
import { createLog } from '../log.ts';
import { createMqttMetrics } from '@alpr/shared/mqtt/metrics';
import { applianceMqttSchema } from './config.ts';
import { mqttOutFor } from './out.ts';

const PASSWORD = 'app-Pa55-pin';
const cert = generateSelfSignedCertificate({ names: ['localhost', '127.0.0.1'], now: new Date() });
const rightPin = new X509Certificate(cert.certPem).fingerprint256.replace(/:/g, '').toLowerCase();
const otherPin = new X509Certificate(generateSelfSignedCertificate({ names: ['localhost'], now: new Date() }).certPem).fingerprint256;
const broker = await startMosquitto({ users: { appliance: PASSWORD, ha: 'ha-Pa55-pin' }, tls: cert });
t.teardown(() => broker.close());

const lines: string[] = [];
const log = createLog(
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  }),
);

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`never: ${what}`);
}

const section = (pin: string) =>
  applianceMqttSchema.parse({ url: broker.tlsUrl ?? '', username: 'appliance', password: PASSWORD, tls_fingerprint: pin, device_name: 'north-gate' });

async function failures(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('alpr_appliance_mqtt_connection_failures_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

t.test('the right pin: connected over TLS without a CA file; a committed detection arrives', async (t) => {
  const registry = new Registry();
  const out = mqttOutFor(section(rightPin), [{ id: 'gate-1', name: 'Gate' }], { log, metrics: createMqttMetrics(registry, 'alpr_appliance_') });
  if (!out) throw new Error('MQTT out did not start');
  t.teardown(() => out.stop());
  const got: Array<{ topic: string; payload: string }> = [];
  const ha = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-pin' });
  t.teardown(() => ha.endAsync());
  ha.on('message', (topic, payload) => got.push({ topic, payload: payload.toString('utf8') }));
  await ha.subscribeAsync(['alpr/#'], { qos: 1 });
  await until(() => out.stats().connected, 'connected with the pin');

  out.detection({ detection: sampleDetection({ plate: 'PIN42AB', cameraId: 'gate-1' }), source: 'gate-1' });
  await until(() => got.some((m) => m.topic === 'alpr/detections' && m.payload.includes('PIN42AB')), 'the detection over the pinned connection');
  t.match(JSON.parse(got.find((m) => m.topic === 'alpr/detections')?.payload ?? '{}'), { plate_number: 'PIN42AB', camera: { id: 'gate-1', name: 'Gate' } });
  t.equal(await failures(registry), 0, 'no failed connection');
});

t.test('a wrong pin: refused, logged with both fingerprints, counted; never connected, the password in no log line', async (t) => {
  const registry = new Registry();
  const out = mqttOutFor(section(otherPin), [{ id: 'gate-1' }], { log, metrics: createMqttMetrics(registry, 'alpr_appliance_') });
  if (!out) throw new Error('MQTT out did not start');
  t.teardown(() => out.stop());
  // The publisher's reconnect starts at 1 s: two refusals within a few seconds.
  await until(async () => (await failures(registry)) >= 2, 'two refused attempts counted');
  t.equal(out.stats().connected, false, 'not connected');
  out.detection({ detection: sampleDetection({ plate: 'NOPIN99', cameraId: 'gate-1' }), source: 'gate-1' });
  t.equal(out.stats().connected, false, 'a detection while refused is queued, not sent');
  const refused = lines.find((l) => l.includes('does not match the pinned'));
  t.ok(refused, 'the refusal is logged');
  t.match(JSON.parse(refused ?? '{}'), { level: 50, expected: otherPin, got: new X509Certificate(cert.certPem).fingerprint256 });
  t.notOk(
    lines.some((l) => l.includes(PASSWORD)),
    'the password is in no log line',
  );
});
