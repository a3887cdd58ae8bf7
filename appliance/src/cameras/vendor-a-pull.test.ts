import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { cameraConfigSchema } from './config.ts';
import type { CameraConfigInput } from './config.ts';
import { memoryCursors, memoryDeps, memorySink, sha256, until } from './memory.test-helper.ts';
import { startVendorAPull, vendorACursorKey } from './vendor-a-pull.ts';

const config = (over: Partial<CameraConfigInput>) =>
  cameraConfigSchema.parse({
    id: 'gate-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '127.0.0.1',
    username: 'admin',
    password: 'admin12345',
    timezone: 'Europe/Paris',
    pollIntervalMs: 50,
    backoffBaseMs: 10,
    backoffCapMs: 80,
    ...over,
  });

t.test('every read arrives exactly once across a runner restart, with its plate image', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0.1, seed: 7, cropBytes: 2000, sceneBytes: 4000 });
  t.teardown(() => camera.close());
  const cfg = config({ port: camera.port });
  const sink = memorySink();
  const cursors = memoryCursors();

  camera.addReads(30);
  const first = startVendorAPull(cfg, memoryDeps({ sink, cursors }));
  const firstBatch = camera.produced.filter((r) => !r.read.unknown).length;
  t.ok(await sink.waitFor(firstBatch), 'first batch delivered');
  await first.stop();
  t.equal(cursors.values.get(vendorACursorKey('gate-1')), camera.produced.at(-1)?.picName, 'cursor stored = largest picName');

  camera.addReads(25);
  const second = startVendorAPull(cfg, memoryDeps({ sink, cursors }));
  t.teardown(() => second.stop());
  const expected = camera.produced.filter((r) => !r.read.unknown);
  t.ok(await sink.waitFor(expected.length), 'second batch delivered');
  await second.stop();

  t.same(sink.ids().sort(), expected.map((r) => r.picName).sort(), 'exactly the readable reads');
  t.equal(sink.calls, expected.length, 'no read handed to the sink twice: the restart resumed from the stored cursor');
  for (const r of expected) {
    t.equal(sink.imageHash(r.picName, 'plate_crop'), sha256(r.read.crop), `plate image of ${r.picName}`);
  }
  const item = sink.items[0];
  t.equal(item?.detection.camera.mac, camera.mac.replace(/:/g, ''), 'MAC read from deviceInfo');
  t.equal(item?.detection.camera.id, 'gate-1');
  t.equal(second.status().counters.reads, expected.length - first.status().counters.reads, 'reads counted per run');
});

t.test('old copies appended by the camera are dropped downstream, nothing is lost', async (t) => {
  const camera = await startVendorACamera({
    ratePerSecond: 0,
    oldCopyRate: 0.9,
    unknownRate: 0,
    seed: 3,
    cropBytes: 500,
    sceneBytes: 500,
    maxPlatesPerResponse: 5,
  });
  t.teardown(() => camera.close());
  const deps = memoryDeps();
  camera.addReads(23);
  const runner = startVendorAPull(config({ port: camera.port, mac: camera.mac }), deps);
  t.teardown(() => runner.stop());
  t.ok(await deps.sink.waitFor(23));
  await runner.stop();
  t.same(deps.sink.ids().sort(), camera.produced.map((r) => r.picName).sort());
});

/**
 * A plain camera double: no auth, a fixed list of `<Plate>` entries served after the
 * cursor (entries without a picName always), images answered with `imageStatus`.
 */
async function fixedCamera(t: Test, imageStatus: number, entries: string[]) {
  const imageRequests: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.includes('/vehicleDetect/plates')) {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const cursor = BigInt(/<picTime>(\d+)<\/picTime>/.exec(body)?.[1] ?? '0');
        const after = entries.filter((e) => BigInt(/<picName>(\d+)</.exec(e)?.[1] ?? '0') > cursor);
        res.writeHead(200, { 'content-type': 'application/xml' }).end(`<Plates version="2.0">${after.join('')}</Plates>`);
      });
      return;
    }
    if (req.url?.startsWith('/doc/ui/images/plate/')) {
      imageRequests.push(req.url);
      res.writeHead(imageStatus, { 'content-type': 'text/plain' }).end('no');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, imageRequests };
}

const plate = (picName: string, time: string, number: string) =>
  `<Plate><captureTime>${time}</captureTime><plateNumber>${number}</plateNumber><picName>${picName}</picName><direction>forward</direction></Plate>`;

t.test('an image that cannot be fetched leaves the detection without it; a broken entry is counted', async (t) => {
  const xml = [
    plate('203001020304050100', '20300102T030405+0100', 'AB 123'),
    plate('203001020304060100', '20300102T030406+0100', 'CD 456'),
    '<Plate><plateNumber>XX</plateNumber><picName>203001020304070100</picName></Plate>',
  ];
  for (const [status, perImage] of [
    [500, 2],
    [404, 1],
  ] as const) {
    const cam = await fixedCamera(t, status, xml);
    const deps = memoryDeps();
    const runner = startVendorAPull(config({ port: cam.port, mac: '00:11:22:aa:bb:cc', initialBacklogMs: 0 }), deps);
    t.ok(await deps.sink.waitFor(2), `HTTP ${status}: detections kept`);
    t.ok(await until(() => deps.cursors.sets > 0));
    await runner.stop();
    t.same(deps.sink.ids().sort(), ['203001020304050100', '203001020304060100']);
    t.same(
      deps.sink.items.map((i) => Object.keys(i.images)),
      [[], []],
      'no images',
    );
    t.equal(deps.sink.items[0]?.detection.vehicle?.direction, 'entering', 'forward mapped by the default direction mapping');
    t.equal(cam.imageRequests.length, 2 * perImage, status === 500 ? 'one retry on a 5xx' : 'no retry on a 404');
    const s = runner.status();
    t.equal(s.counters.imageFailures, 2);
    t.equal(s.counters.errors, 1, 'the entry without captureTime counted as an error');
    t.ok(deps.log.messages('warn').includes('unparseable detection skipped'));
    t.equal(deps.cursors.values.get(vendorACursorKey('gate-1')), '203001020304070100', 'cursor moves past the broken entry');
  }
});

t.test('camera down: OFFLINE, reconnects back off 10/20/40/80 ms, back: ONLINE, backoff reset', async (t) => {
  let camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 5 });
  const port = camera.port;
  const deps = memoryDeps();
  const runner = startVendorAPull(config({ port }), deps);
  t.teardown(async () => {
    await runner.stop();
    await camera.close();
  });
  t.ok(await until(() => runner.status().state === 'ONLINE'), 'online');
  await camera.close();
  t.ok(await until(() => runner.status().state === 'OFFLINE'), 'offline once the camera is gone');
  t.ok(await until(() => runner.status().counters.reconnects >= 6), 'keeps trying');
  const attempts = deps.log.entries.filter((e) => e.msg === 'camera unreachable; reconnecting');
  t.same(
    attempts.slice(0, 6).map((e) => e.obj.delayMs),
    [10, 20, 40, 80, 80, 80],
    'doubling, capped',
  );
  t.same(
    attempts.slice(0, 3).map((e) => e.obj.attempt),
    [1, 2, 3],
    'each attempt logged',
  );
  t.match(runner.status().lastError, /cannot reach|ECONNREFUSED|failed/);

  camera = await startVendorACamera({ port, ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 6 });
  camera.addReads(3);
  t.ok(await until(() => runner.status().state === 'ONLINE'), 'online again');
  t.ok(await deps.sink.waitFor(3), 'reads flow again');
  const before = deps.log.entries.length;
  await camera.close();
  t.ok(await until(() => deps.log.entries.slice(before).some((e) => e.msg === 'camera unreachable; reconnecting')));
  const next = deps.log.entries.slice(before).find((e) => e.msg === 'camera unreachable; reconnecting');
  t.equal(next?.obj.attempt, 1, 'backoff reset after success');
  t.equal(next?.obj.delayMs, 10);
});

t.test('a refused sink keeps the cursor and the camera ONLINE; the same reads come again', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 9, cropBytes: 300, sceneBytes: 300 });
  t.teardown(() => camera.close());
  const deps = memoryDeps();
  deps.sink.failing = true;
  camera.addReads(4);
  const runner = startVendorAPull(config({ port: camera.port, mac: camera.mac }), deps);
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().counters.sinkFailures >= 2));
  t.equal(deps.cursors.sets, 0, 'cursor not advanced while the sink refuses');
  t.equal(runner.status().state, 'ONLINE');
  deps.sink.failing = false;
  t.ok(await deps.sink.waitFor(4), 'delivered once the sink accepts again');
  t.same(deps.sink.ids().sort(), camera.produced.map((r) => r.picName).sort());
});

t.test('a device that refuses POST is pulled by GET (images inline); GET by configuration never POSTs', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 12, cropBytes: 400, sceneBytes: 800, refusePost: true });
  t.teardown(() => camera.close());
  camera.addReads(6);
  const deps = memoryDeps();
  const runner = startVendorAPull(config({ port: camera.port, mac: camera.mac }), deps);
  t.teardown(() => runner.stop());
  t.ok(await deps.sink.waitFor(6), 'every read arrives');
  await runner.stop();
  t.same(deps.sink.ids().sort(), camera.produced.map((r) => r.picName).sort());
  for (const r of camera.produced) {
    t.equal(deps.sink.imageHash(r.picName, 'plate_crop'), sha256(r.read.crop), 'plate crop inline');
    t.equal(deps.sink.imageHash(r.picName, 'full_scene'), sha256(r.read.scene), 'scene inline (the GET variant carries it)');
  }
  t.equal(camera.stats.platesPosts, 1, 'one refused POST, then GET only');
  t.ok(deps.log.messages('info').includes('vendor_a device refuses POST on the plates list; pulling by GET'));
  t.equal(runner.status().counters.errors, 0);

  const configured = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 13, cropBytes: 300, sceneBytes: 300 });
  t.teardown(() => configured.close());
  configured.addReads(3);
  const deps2 = memoryDeps();
  const byGet = startVendorAPull(config({ port: configured.port, mac: configured.mac, pullMethod: 'GET' }), deps2);
  t.teardown(() => byGet.stop());
  t.ok(await deps2.sink.waitFor(3));
  await byGet.stop();
  t.equal(configured.stats.platesPosts, 0, 'pullMethod = "GET": no POST at all');
  t.ok(configured.stats.platesGets > 0);
});

t.test('pullMethod = "POST": a refused POST is an error, not a silent switch', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 14, refusePost: true });
  t.teardown(() => camera.close());
  const deps = memoryDeps();
  const runner = startVendorAPull(config({ port: camera.port, mac: camera.mac, pullMethod: 'POST' }), deps);
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().state === 'OFFLINE'));
  await runner.stop();
  t.equal(camera.stats.platesGets, 0);
  t.match(runner.status().lastError, /HTTP 405/);
});
