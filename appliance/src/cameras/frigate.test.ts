/**
 * The Frigate runner against a real mosquitto and the Frigate simulator: a buffer that refuses
 * for a while loses no read (it is retried, then stored once with its snapshot), and a broker
 * that goes down and comes back is reconnected to and its next events are taken.
 */
import t from 'tap';
import { startMosquitto } from '../../../scripts/simulators/mosquitto.ts';
import { frigateEventId, startFrigateSimulator } from '../../../scripts/simulators/frigate.ts';
import { sceneJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { cameraConfigSchema } from './config.ts';
import { startFrigate } from './frigate.ts';
import { memoryDeps, sha256, until } from './memory.test-helper.ts';

const broker = await startMosquitto({ users: { frigate: 'frigate-Pa55' } });
t.teardown(() => broker.close());
const frigate = await startFrigateSimulator({ brokerUrl: broker.url, mqtt: { username: 'frigate', password: 'frigate-Pa55', reconnectPeriod: 100 } });
t.teardown(() => frigate.close());

const config = cameraConfigSchema.parse({
  id: 'frigate-test',
  vendor: 'frigate',
  mode: 'pull',
  host: '127.0.0.1',
  port: frigate.port,
  mqttUrl: broker.url,
  username: 'frigate',
  password: 'frigate-Pa55',
  backoffBaseMs: 50,
  backoffCapMs: 200,
});
const deps = memoryDeps();
const runner = startFrigate(config, deps);
t.teardown(() => runner.stop());

t.test('a refusing buffer: the read is retried, stored once, with its snapshot', async (t) => {
  t.ok(await until(() => runner.status().state === 'ONLINE', 60_000), 'subscribed');
  deps.sink.failing = true;
  const now = Date.now() - 2_000;
  await frigate.pass({ plate: 'RETRY01', timeMs: now, repeats: 3 });
  t.ok(await until(() => deps.sink.calls >= 2, 60_000), 'the sink refused the read, and it was tried again');
  deps.sink.failing = false;
  t.ok(await deps.sink.waitFor(1, 60_000), 'stored once the buffer takes it');
  t.same(
    deps.sink.items.map((i) => i.detection.plate.text),
    ['RETRY01'],
    'one read for the whole event',
  );
  const id = deps.sink.items[0]?.detection.detection_id ?? '';
  t.equal(deps.sink.imageHash(id, 'full_scene'), sha256(sceneJpeg('RETRY01')), 'the snapshot Frigate served is the scene image');
});

t.test('the broker goes down and comes back: reconnected, next events taken', async (t) => {
  await broker.stop();
  t.ok(await until(() => runner.status().state === 'OFFLINE', 60_000), 'offline while the broker is down');
  await broker.start();
  t.ok(await until(() => runner.status().state === 'ONLINE', 60_000), 'online again');
  // The simulator's own client reconnects too; mqtt.js holds what it publishes until then.
  await frigate.pass({ plate: 'AFTER02', timeMs: Date.now() - 1_000, eventId: frigateEventId(Date.now(), 'after2') });
  t.ok(await deps.sink.waitFor(2, 60_000), 'the event after the outage was stored');
  t.ok(runner.status().counters.reconnects >= 1, 'the reconnect was counted');
});
