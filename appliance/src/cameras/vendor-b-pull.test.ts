import t from 'tap';
import type { Test } from 'tap';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import type { VendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { cameraConfigSchema } from './config.ts';
import type { CameraConfigInput } from './config.ts';
import { memoryCursors, memoryDeps, memorySink, until } from './memory.test-helper.ts';
import type { MemorySink } from './memory.test-helper.ts';
import { startVendorBPull, vendorBPullCursorKey } from './vendor-b-pull.ts';

const config = (port: number, over: Partial<CameraConfigInput> = {}) =>
  cameraConfigSchema.parse({
    id: 'nvr-1',
    vendor: 'vendor_b',
    mode: 'pull',
    host: '127.0.0.1',
    port,
    tls: false,
    token: 'sim-token',
    pollIntervalMs: 50,
    backoffBaseMs: 10,
    backoffCapMs: 80,
    ...over,
  });

const nvrOptions = { ratePerSecond: 0, plateDelayMs: 20, endDelayMs: 40, motionRate: 0.3, legacyRate: 0.3, cropBytes: 300, sceneBytes: 800 };

function checkAll(t: Test, nvr: VendorBNvr, sink: MemorySink): void {
  const expected = nvr.delivered.filter((d) => !d.unknown);
  t.same(sink.ids().sort(), expected.map((d) => d.detectionId).sort(), 'every readable plate event, once');
  for (const d of expected) {
    const item = sink.items.find((i) => i.detection.detection_id === d.detectionId);
    t.equal(sink.imageHash(d.detectionId, 'full_scene'), d.images.fullScene, 'thumbnail stored');
    t.equal(item?.detection.camera.mac, d.mac.toLowerCase(), 'MAC from the bootstrap');
  }
}

t.test('all plate events and their thumbnails, under the console rate limit, across a restart', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 21, thumbnailRatePerSecond: 10 });
  t.teardown(() => nvr.close());
  const sink = memorySink();
  const cursors = memoryCursors();
  const cfg = config(nvr.port, { thumbnailsPerSecond: 8 });

  nvr.addReads(12);
  await nvr.idle();
  const first = startVendorBPull(cfg, memoryDeps({ sink, cursors }));
  t.ok(await sink.waitFor(nvr.delivered.filter((d) => !d.unknown).length));
  await first.stop();
  t.ok(cursors.values.get(vendorBPullCursorKey('nvr-1')), 'cursor stored');
  t.equal(first.status().counters.imageRateLimited, 0, 'never answered 429: the bucket kept under the limit');

  nvr.addReads(10);
  await nvr.idle();
  const second = startVendorBPull(cfg, memoryDeps({ sink, cursors }));
  t.teardown(() => second.stop());
  t.ok(await sink.waitFor(nvr.delivered.filter((d) => !d.unknown).length));
  await second.stop();
  checkAll(t, nvr, sink);
  t.equal(second.status().counters.imageRateLimited, 0);
  t.equal(second.status().counters.imageFailures, 0);
  t.equal(second.status().state, 'ONLINE');
});

t.test('a console that answers 429 is backed off from and every thumbnail still arrives', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 22, thumbnailRatePerSecond: 2 });
  t.teardown(() => nvr.close());
  nvr.addReads(6);
  await nvr.idle();
  const deps = memoryDeps();
  const runner = startVendorBPull(config(nvr.port, { thumbnailsPerSecond: 100 }), deps);
  t.teardown(() => runner.stop());
  t.ok(await deps.sink.waitFor(nvr.delivered.filter((d) => !d.unknown).length, 20_000));
  await runner.stop();
  checkAll(t, nvr, deps.sink);
  t.ok(runner.status().counters.imageRateLimited > 0, 'the console did say 429');
  t.equal(runner.status().counters.imageFailures, 0, 'no thumbnail given up');
});

t.test('cameraIds keeps only the chosen NVR cameras; a wrong token is OFFLINE', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 23, unknownRate: 0 });
  t.teardown(() => nvr.close());
  nvr.addReads(8);
  await nvr.idle();
  const chosen = nvr.cameras[0]?.id ?? '';
  const deps = memoryDeps();
  const runner = startVendorBPull(config(nvr.port, { cameraIds: [chosen] }), deps);
  const expected = nvr.delivered.filter((d) => d.mac === nvr.cameras[0]?.mac);
  t.ok(await deps.sink.waitFor(expected.length));
  await runner.stop();
  t.same(deps.sink.ids().sort(), expected.map((d) => d.detectionId).sort());

  const wrong = memoryDeps();
  const denied = startVendorBPull(config(nvr.port, { token: 'nope' }), wrong);
  t.teardown(() => denied.stop());
  t.ok(await until(() => denied.status().state === 'OFFLINE'), 'OFFLINE');
  t.match(denied.status().lastError, /HTTP 401/);
});

t.test('a console before Protect 1.21: type=licensePlate query and thumbnails/{id}, learned once', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 24, olderApi: true });
  t.teardown(() => nvr.close());
  nvr.addReads(8);
  await nvr.idle();
  const deps = memoryDeps();
  const runner = startVendorBPull(config(nvr.port), deps);
  t.teardown(() => runner.stop());
  t.ok(await deps.sink.waitFor(nvr.delivered.filter((d) => !d.unknown).length));
  await runner.stop();
  checkAll(t, nvr, deps.sink);
  t.equal(runner.status().counters.imageFailures, 0, 'every thumbnail from the older path');
  const infos = deps.log.messages('info');
  t.equal(infos.filter((m) => m === 'vendor_b console refuses the current events query; using type=licensePlate').length, 1, 'query switch logged once');
  t.equal(infos.filter((m) => m === 'vendor_b console has no events/{id}/thumbnail; using thumbnails/{id}').length, 1, 'thumbnail switch logged once');
});

t.test('a console that ignores limit and lists 2,000 events for one query: every read delivered, the cursor moves on', async (t) => {
  // Plate-crop scenes: 2,000 drawn street scenes were 36 s of JPEG encoding in the simulator
  // (scripts/simulators/plates.ts), longer than the runner takes to drain them at 100/s.
  const nvr = await startVendorBNvr({ ...nvrOptions, motionRate: 0, seed: 31, thumbnailRatePerSecond: 1000, ignoreLimit: true, scenes: 'plate' });
  t.teardown(() => nvr.close());
  nvr.addReads(2000);
  await nvr.idle();
  const sink = memorySink();
  const cursors = memoryCursors();
  const runner = startVendorBPull(config(nvr.port, { thumbnailsPerSecond: 100, initialBacklogMs: 3_600_000 }), memoryDeps({ sink, cursors }));
  t.teardown(() => runner.stop());
  const readable = nvr.delivered.filter((d) => !d.unknown).length;
  t.ok(readable > 1500, `${readable} readable plate events in one window`);
  t.ok(await sink.waitFor(readable, 120_000), 'all of them reached the buffer');
  await runner.stop();
  t.same(
    sink.ids().sort(),
    nvr.delivered
      .filter((d) => !d.unknown)
      .map((d) => d.detectionId)
      .sort(),
    'each once',
  );
  t.equal(runner.status().counters.errors, 0, 'no reply refused as too large');
  const thumbnails = new Map(nvr.delivered.map((d) => [d.detectionId, d.images.fullScene]));
  const matching = sink.ids().filter((id) => sink.imageHash(id, 'full_scene') === thumbnails.get(id)).length;
  t.equal(matching, readable, 'each with its own thumbnail');
  t.equal(runner.status().counters.imageFailures, 0, 'no thumbnail given up');
});
