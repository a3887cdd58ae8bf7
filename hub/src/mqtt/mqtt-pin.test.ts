/**
 * A broker pinned by its certificate's SHA-256 (HUB_MQTT_TLS_FINGERPRINT, docs/mqtt.md) against
 * a real mosquitto on TLS with a self-signed certificate made here: the right pin (lower case,
 * no colons, as an admin may paste it) connects without any CA file and an alert reaches a
 * subscriber; a wrong pin never connects, logs why, and moves the failure counter in /metrics.
 */
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { parseExposition, valueOf } from '@alpr/shared/metrics/exposition.test-helper';
import { startMosquitto } from '../../../scripts/simulators/mosquitto.ts';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { sampleDetection, startTestHub, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { startMqttOut } from './run.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
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
const ctx = { db, clock: { now: () => new Date() }, log };
const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, actor, { name: 'MQTT pinned', priority: 'high' });
await addEntry(ctx, actor, list.id, { plate: 'MQTPIN1' });
const worker = createAlertWorker(ctx, createWatchlistCache(ctx));

const cert = generateSelfSignedCertificate({ names: ['localhost', '127.0.0.1'], now: new Date() });
const rightPin = new X509Certificate(cert.certPem).fingerprint256.replace(/:/g, '').toLowerCase();
const otherPin = new X509Certificate(generateSelfSignedCertificate({ names: ['localhost'], now: new Date() }).certPem).fingerprint256;
const broker = await startMosquitto({ users: { hub: 'hub-Pa55-pin', ha: 'ha-Pa55-pin' }, tls: cert });
t.teardown(() => broker.close());
const tlsUrl = broker.tlsUrl ?? '';

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`never: ${what}`);
}

async function failures(): Promise<number> {
  const res = await fetch(`${hub.url}/metrics`);
  return valueOf(parseExposition(await res.text()), 'alpr_hub_mqtt_connection_failures_total');
}

const deps = { db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config, ...(hub.deps.metrics ? { metrics: hub.deps.metrics } : {}) };

t.test('the right pin: connected over TLS without a CA file, and the alert arrives', async (t) => {
  const config = loadMqttOutConfig({ HUB_MQTT_URL: tlsUrl, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'hub-Pa55-pin', HUB_MQTT_TLS_FINGERPRINT: rightPin });
  if (!config) throw new Error('no config');
  t.notOk(config.ca, 'no CA file given');
  const out = await startMqttOut(deps, config);
  t.teardown(() => out.stop());
  const got: Array<{ topic: string; payload: string }> = [];
  const ha = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-pin' });
  t.teardown(() => ha.endAsync());
  ha.on('message', (topic, payload) => got.push({ topic, payload: payload.toString('utf8') }));
  await ha.subscribeAsync(['alpr/#'], { qos: 1 });
  await until(() => out.stats().connected, 'connected with the pin');

  const detection = sampleDetection({ plate: { text: 'MQTPIN1', confidence: 0.9 }, timestamp: new Date(Date.now() - 60_000).toISOString() });
  await uploadBatch(hub, hub.apiKey, [{ detection }]);
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
  await until(() => got.some((m) => m.topic === 'alpr/alerts' && m.payload.includes('MQTPIN1')), 'the alert over the pinned connection');
  t.ok(
    got.some((m) => m.topic === 'alpr/status' && m.payload === 'online'),
    'the birth message',
  );
  t.equal(await failures(), 0, 'no failed connection');
});

t.test('a wrong pin: refused, logged, counted; never connected', async (t) => {
  const config = loadMqttOutConfig({ HUB_MQTT_URL: tlsUrl, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'hub-Pa55-pin', HUB_MQTT_TLS_FINGERPRINT: otherPin });
  if (!config) throw new Error('no config');
  const before = await failures();
  const out = await startMqttOut(deps, { ...config, backoffBaseMs: 100, backoffCapMs: 200 });
  t.teardown(() => out.stop());
  await until(async () => (await failures()) >= before + 2, 'two refused attempts counted');
  t.equal(out.stats().connected, false, 'not connected');
  const refused = lines.find((l) => l.includes('does not match the pinned'));
  t.ok(refused, 'the refusal is logged');
  t.match(
    JSON.parse(refused ?? '{}'),
    { level: 50, expected: otherPin, got: new X509Certificate(cert.certPem).fingerprint256 },
    'an error naming both fingerprints',
  );
  t.notOk(
    lines.some((l) => l.includes('hub-Pa55-pin')),
    'the password is in no log line',
  );
});
