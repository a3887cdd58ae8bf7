import t from 'tap';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { cameraListSchema } from './config.ts';
import { startCameraRunners } from './runner.ts';
import { realSleep } from './ports.ts';
import type { Sleep } from './ports.ts';
import { memoryCursors, memoryLog, memorySink, until } from './memory.test-helper.ts';

t.test('one runner per camera, picked by vendor and mode; statuses for all of them', async (t) => {
  const camA = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 41, cropBytes: 300, sceneBytes: 300 });
  const nvrPull = await startVendorBNvr({ ratePerSecond: 0, plateDelayMs: 10, endDelayMs: 20, unknownRate: 0, motionRate: 0, seed: 42, cameraCount: 1 });
  const nvrPush = await startVendorBNvr({ ratePerSecond: 0, plateDelayMs: 10, endDelayMs: 20, unknownRate: 0, motionRate: 0, seed: 43, cameraCount: 1 });
  t.teardown(async () => {
    await camA.close();
    await nvrPull.close();
    await nvrPush.close();
  });
  const common = { host: '127.0.0.1', pollIntervalMs: 50, backoffBaseMs: 10, backoffCapMs: 80 };
  const cameras = cameraListSchema.parse([
    {
      ...common,
      id: 'a-pull',
      vendor: 'vendor_a',
      mode: 'pull',
      port: camA.port,
      username: 'admin',
      password: 'admin12345',
      timezone: 'Europe/Paris',
      mac: camA.mac,
    },
    { id: 'a-push', vendor: 'vendor_a', mode: 'push', mac: '00:11:22:33:44:55' },
    { ...common, id: 'b-pull', vendor: 'vendor_b', mode: 'pull', port: nvrPull.port, tls: false, token: 'sim-token' },
    { ...common, id: 'b-push', vendor: 'vendor_b', mode: 'push', port: nvrPush.port, tls: false, token: 'sim-token' },
  ]);
  const sink = memorySink();
  // The injected sleep records every wait a runner asks for: after stop() none may follow.
  // After stop it returns at once, so a loop still alive would spin and be seen within a
  // few turns of the event loop, without a wall-clock wait.
  let stopped = false;
  let sleepsAfterStop = 0;
  const sleep: Sleep = (ms, signal) => {
    if (!stopped) return realSleep(ms, signal);
    sleepsAfterStop += 1;
    return Promise.resolve();
  };
  const runners = startCameraRunners({ cameras, sink, cursors: memoryCursors(), log: memoryLog(), random: () => 0.5, sleep });
  t.teardown(() => runners.stop());

  t.ok(await until(() => runners.statuses().filter((s) => s.state === 'ONLINE').length === 3), 'three active runners online');
  camA.addReads(2);
  nvrPull.addReads(2);
  nvrPush.addReads(2);
  t.ok(await sink.waitFor(6), 'reads from every active runner');
  const bySource = (id: string) => sink.items.filter((i) => i.source === id).length;
  t.same([bySource('a-pull'), bySource('b-pull'), bySource('b-push')], [2, 2, 2]);

  const statuses = runners.statuses();
  t.same(
    statuses.map((s) => [s.id, s.vendor, s.mode]),
    [
      ['a-pull', 'vendor_a', 'pull'],
      ['a-push', 'vendor_a', 'push'],
      ['b-pull', 'vendor_b', 'pull'],
      ['b-push', 'vendor_b', 'push'],
    ],
  );
  t.equal(statuses[1]?.state, 'CONNECTING', 'a push camera waits for its first post');
  runners.statusOf('a-push')?.online();
  t.equal(runners.statuses()[1]?.state, 'ONLINE', 'the ingest app marks it through statusOf');

  const known = runners.vendorBCameras();
  t.equal(known.get(nvrPull.cameras[0]?.id ?? '')?.mac, nvrPull.cameras[0]?.mac.toLowerCase(), 'bootstrap MACs exposed for pushes');
  t.ok(known.has(nvrPush.cameras[0]?.id ?? ''));

  await runners.stop();
  stopped = true;
  const calls = sink.calls;
  const requests = camA.stats.requests;
  camA.addReads(1);
  for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r));
  t.equal(sleepsAfterStop, 0, 'no runner waits for another poll after stop');
  t.equal(camA.stats.requests, requests, 'no request to the camera after stop');
  t.equal(sink.calls, calls, 'nothing runs after stop');
});
