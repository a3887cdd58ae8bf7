/**
 * What Home Assistant's sensors see per camera, with HUB_MQTT_DETECTIONS at its default (off),
 * against a real mosquitto (docs/mqtt.md): a retro-hunt's historical alert is published as an
 * alert but never moves the camera's retained last plate back in time; a camera with reads and
 * no alert still gets its discovery config, once, without its detections being published.
 */
import t from 'tap';
import mqtt from 'mqtt';
import { retroHuntWith } from '../alerts/retro-hunt.ts';
import { addEntry } from '../watchlists/entries.ts';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { startMqttOut } from './run.ts';
import { mqttTestBroker, mqttTestHub, until } from './mqtt.test-helper.ts';

const DAY = 86_400_000;
const { db, hub, log, ctx, actor, list, cache, raise } = await mqttTestHub(t, 'MQTT cameras', ['LIVE0001', 'LIVE0002']);

const broker = await mqttTestBroker(t, { users: { hub: 'hub-Pa55-mqtt', ha: 'ha-Pa55-mqtt' } });
const config = loadMqttOutConfig({ HUB_MQTT_URL: broker.url, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'hub-Pa55-mqtt' });
if (!config) throw new Error('no config');
if (config.detections) throw new Error('detections are off by default');
const out = await startMqttOut({ db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config }, config);
t.teardown(() => out.stop());

const got: Array<{ topic: string; payload: string }> = [];
const ha = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-mqtt' });
t.teardown(() => ha.endAsync());
ha.on('message', (topic, payload) => got.push({ topic, payload: payload.toString('utf8') }));
await ha.subscribeAsync(['alpr/#', 'homeassistant/#'], { qos: 1 });

await until(() => out.stats().connected, 'connected');

/** One read per plate from `camera`, `ago` ms before now, through the real upload; the live matcher runs after (on the lists as they are now). */
async function upload(plates: readonly string[], camera: string, ago = 60_000): Promise<void> {
  cache.invalidate();
  await raise(plates, { camera, agoMs: ago });
}
const lastPlates = (camera: string): string[] =>
  got.filter((m) => m.topic === `alpr/cameras/${hub.collectorId}_${camera}/last_plate`).map((m) => (JSON.parse(m.payload) as { plate: string }).plate);
const discoveries = (camera: string): number => got.filter((m) => m.topic === `homeassistant/sensor/alpr_${hub.collectorId}_${camera}/config`).length;
const alertPlates = (): string[] => got.filter((m) => m.topic === 'alpr/alerts').map((m) => (JSON.parse(m.payload) as { plate_number: string }).plate_number);

t.test('a retro-hunt hit is published as an alert and leaves the retained last plate alone', async (t) => {
  // Two days ago, before any list held it: the hand-added hunt finds it later.
  await upload(['RETRO001'], 'gate-1', 2 * DAY);
  await upload(['LIVE0001'], 'gate-1');
  await until(() => lastPlates('gate-1').includes('LIVE0001'), 'the live alert sets the last plate');

  const added = await addEntry(ctx, actor, list.id, { plate: 'RETRO001' }, { hunt: retroHuntWith(undefined) });
  t.equal(added.retroHunt?.hits, 1, 'the hunt raised one historical hit');
  await until(() => alertPlates().includes('RETRO001'), 'the historical alert');
  const historical = JSON.parse(got.find((m) => m.topic === 'alpr/alerts' && m.payload.includes('RETRO001'))?.payload ?? '{}') as { historical?: boolean };
  t.equal(historical.historical, true, 'marked historical');

  // A live alert after it: messages arrive in order, so by then the hit's last plate would have come.
  await upload(['LIVE0002'], 'gate-1');
  await until(() => lastPlates('gate-1').includes('LIVE0002'), 'the next live alert');
  t.same(lastPlates('gate-1'), ['LIVE0001', 'LIVE0002'], 'the historical hit never set the last plate');
});

t.test('a camera with reads and no alert gets its discovery config once, and no detection is published', async (t) => {
  await upload(['QUIET001'], 'yard-2');
  await until(() => discoveries('yard-2') > 0, 'discovery for the camera without alerts');
  await upload(['QUIET002', 'QUIET003'], 'yard-2');
  // Batches are read in order: when the next camera's config arrives, the second batch of yard-2 was read.
  await upload(['QUIET004'], 'yard-3');
  await until(() => discoveries('yard-3') > 0, 'discovery for the third camera');
  t.equal(discoveries('yard-2'), 1, 'once per camera, not once per batch');
  const config = JSON.parse(got.find((m) => m.topic === `homeassistant/sensor/alpr_${hub.collectorId}_yard-2/config`)?.payload ?? '{}') as Record<
    string,
    unknown
  >;
  t.match(config, { unique_id: `alpr_${hub.collectorId}_yard-2`, state_topic: `alpr/cameras/${hub.collectorId}_yard-2/last_plate` });
  t.notOk(
    got.some((m) => m.topic === 'alpr/detections'),
    'detections off: none published',
  );
  t.same(lastPlates('yard-2'), [], 'nor a last plate from a read that raised no alert');
});
