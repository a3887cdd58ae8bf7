/**
 * MQTT out in the hub's /metrics (docs/metrics.md) against a real mosquitto: before MQTT out
 * starts every series is there at 0; real alerts move the per-kind published counter and the
 * connection counters; with the broker stopped and a queue of 2, four alerts drop two (the
 * drop counter and the queue depth gauge say so) and the failed reconnects are counted.
 * Every scrape goes through the strict exposition parser.
 */
import t from 'tap';
import { parseExposition, valueOf, type Exposition } from '@alpr/shared/metrics/exposition.test-helper';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { startMqttOut } from './run.ts';
import { mqttTestBroker, mqttTestHub, until } from './mqtt.test-helper.ts';

const PLATES = ['MQM001', 'MQM002', 'MQMOFF1', 'MQMOFF2', 'MQMOFF3', 'MQMOFF4'];
const { db, hub, log, ctx, raise } = await mqttTestHub(t, 'MQTT metrics', PLATES);
const broker = await mqttTestBroker(t);

async function scrape(): Promise<Exposition> {
  const res = await fetch(`${hub.url}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics ${res.status}`);
  return parseExposition(await res.text());
}

const published = (e: Exposition, kind: string): number => valueOf(e, 'alpr_hub_mqtt_messages_published_total', { kind });

t.test('the MQTT series are served at 0 while MQTT out is off', async (t) => {
  const e = await scrape();
  for (const [name, type] of [
    ['alpr_hub_mqtt_messages_published_total', 'counter'],
    ['alpr_hub_mqtt_messages_dropped_total', 'counter'],
    ['alpr_hub_mqtt_connection_attempts_total', 'counter'],
    ['alpr_hub_mqtt_connection_failures_total', 'counter'],
    ['alpr_hub_mqtt_enabled', 'gauge'],
    ['alpr_hub_mqtt_connected', 'gauge'],
    ['alpr_hub_mqtt_queue_depth', 'gauge'],
  ] as const) {
    t.equal(e.types.get(name), type, `${name} is a ${type}`);
  }
  for (const kind of ['alert', 'detection', 'last_plate', 'discovery', 'status']) t.equal(published(e, kind), 0, `published{kind="${kind}"} 0`);
  t.equal(valueOf(e, 'alpr_hub_mqtt_enabled'), 0);
  t.equal(valueOf(e, 'alpr_hub_mqtt_connected'), 0);
});

t.test('alerts published, then the broker away: drops and failed reconnects counted', async (t) => {
  const config = loadMqttOutConfig({ HUB_MQTT_URL: broker.url, HUB_MQTT_QUEUE_MAX: '2' });
  if (!config) throw new Error('no config');
  const out = await startMqttOut(
    { db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config, ...(hub.deps.metrics ? { metrics: hub.deps.metrics } : {}) },
    // Tests do not wait a minute between reconnects.
    { ...config, backoffBaseMs: 100, backoffCapMs: 200 },
  );
  t.teardown(() => out.stop());
  await until(async () => valueOf(await scrape(), 'alpr_hub_mqtt_connected') === 1, 'connected, as /metrics says');
  let e = await scrape();
  t.equal(valueOf(e, 'alpr_hub_mqtt_enabled'), 1, 'enabled');
  t.equal(valueOf(e, 'alpr_hub_mqtt_connection_attempts_total'), 1, 'one attempt');
  t.equal(valueOf(e, 'alpr_hub_mqtt_connection_failures_total'), 0, 'no failure');

  await raise(['MQM001', 'MQM002']);
  await until(async () => published(await scrape(), 'alert') === 2, 'two alerts counted');
  e = await scrape();
  t.equal(published(e, 'discovery'), 1, 'one camera, one discovery config');
  t.equal(published(e, 'last_plate'), 2, 'a last plate with each alert');
  t.ok(published(e, 'status') >= 1, 'the birth message');
  t.equal(published(e, 'detection'), 0, 'detections are off');
  t.equal(valueOf(e, 'alpr_hub_mqtt_messages_dropped_total'), 0, 'nothing dropped');

  await broker.stop();
  await until(async () => valueOf(await scrape(), 'alpr_hub_mqtt_connected') === 0, 'the broker is gone, as /metrics says');
  await raise(['MQMOFF1', 'MQMOFF2', 'MQMOFF3', 'MQMOFF4']);
  await until(() => out.stats().alertsPublished === 6, 'four more alerts handed to the publisher');
  e = await scrape();
  t.equal(valueOf(e, 'alpr_hub_mqtt_messages_dropped_total'), 2, 'four alerts, a queue of 2: the two oldest dropped');
  // Two alert events, and the camera's last plate (retained: newest only).
  t.equal(valueOf(e, 'alpr_hub_mqtt_queue_depth'), 3, 'queue depth: two alerts and one retained last plate');
  await until(async () => valueOf(await scrape(), 'alpr_hub_mqtt_connection_failures_total') >= 1, 'a failed reconnect counted');
  e = await scrape();
  t.ok(valueOf(e, 'alpr_hub_mqtt_connection_attempts_total') >= 2, 'reconnects are attempts');
  t.equal(published(e, 'alert'), 2, 'nothing published while away');

  await broker.start();
  await until(async () => published(await scrape(), 'alert') === 4, 'the two queued alerts go out on reconnect');
  e = await scrape();
  t.equal(valueOf(e, 'alpr_hub_mqtt_queue_depth'), 0, 'the queue is empty again');
  t.equal(valueOf(e, 'alpr_hub_mqtt_connected'), 1);
});
