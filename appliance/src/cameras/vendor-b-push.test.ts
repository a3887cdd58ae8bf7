import t from 'tap';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { cameraConfigSchema } from './config.ts';
import type { CameraConfigInput } from './config.ts';
import { memoryCursors, memoryDeps, memorySink, until } from './memory.test-helper.ts';
import { startVendorBPush, vendorBPushCursorKey } from './vendor-b-push.ts';

const config = (port: number, over: Partial<CameraConfigInput> = {}) =>
  cameraConfigSchema.parse({
    id: 'nvr-ws',
    vendor: 'vendor_b',
    mode: 'push',
    host: '127.0.0.1',
    port,
    tls: false,
    token: 'sim-token',
    backoffBaseMs: 10,
    backoffCapMs: 80,
    thumbnailsPerSecond: 50,
    ...over,
  });

const nvrOptions = {
  ratePerSecond: 0,
  plateDelayMs: 20,
  endDelayMs: 40,
  motionRate: 0.3,
  legacyRate: 0.3,
  cropBytes: 300,
  sceneBytes: 600,
  thumbnailRatePerSecond: 100,
};

t.test('abrupt socket drops lose no read: socket + catch-up deliver every plate event once', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 31, dropEvery: 5 });
  t.teardown(() => nvr.close());
  const deps = memoryDeps();
  const runner = startVendorBPush(config(nvr.port), deps);
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().state === 'ONLINE'), 'connected');

  // Reads in small bursts, so their lifecycles straddle the drops (every 5th message). On a
  // loaded machine many messages fall into reconnect gaps (not sent, so no drop): keep
  // producing until the socket was dropped at least 3 times (bounded).
  for (let i = 0; i < 8 || (nvr.drops < 3 && i < 200); i++) {
    nvr.addReads(3);
    await new Promise((r) => setTimeout(r, 30));
  }
  await nvr.idle();
  const expected = nvr.delivered.filter((d) => !d.unknown);
  t.ok(await deps.sink.waitFor(expected.length, 15_000), 'all reads arrived');
  await runner.stop();

  t.ok(nvr.drops >= 3, `the simulator dropped the socket (${nvr.drops} times)`);
  t.same(deps.sink.ids().sort(), expected.map((d) => d.detectionId).sort(), 'exactly the readable plate events');
  for (const d of expected) {
    t.equal(deps.sink.imageHash(d.detectionId, 'full_scene'), d.images.fullScene, 'thumbnail stored');
  }
  const s = runner.status();
  t.ok(s.counters.reconnects >= 3, 'reconnects counted');
  t.equal(s.counters.imageFailures, 0);
  t.ok(deps.log.messages('warn').includes('updates socket closed; reconnecting'), 'each reconnect logged');
  t.ok(deps.cursors.values.get(vendorBPushCursorKey('nvr-ws')), 'last seen position stored');
});

t.test('reads made while the runner was stopped are caught up from the stored position', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 32 });
  t.teardown(() => nvr.close());
  const sink = memorySink();
  const cursors = memoryCursors();
  const first = startVendorBPush(config(nvr.port), memoryDeps({ sink, cursors }));
  t.ok(await until(() => first.status().state === 'ONLINE'));
  nvr.addReads(4);
  await nvr.idle();
  t.ok(await sink.waitFor(nvr.delivered.filter((d) => !d.unknown).length));
  await first.stop();

  nvr.addReads(5);
  await nvr.idle();
  const second = startVendorBPush(config(nvr.port), memoryDeps({ sink, cursors }));
  t.teardown(() => second.stop());
  const expected = nvr.delivered.filter((d) => !d.unknown);
  t.ok(await sink.waitFor(expected.length), 'offline reads caught up');
  t.same(sink.ids().sort(), expected.map((d) => d.detectionId).sort());
});

t.test('console unreachable: OFFLINE with growing backoff; a wrong token never gets ONLINE', async (t) => {
  const deps = memoryDeps();
  const runner = startVendorBPush(config(1), deps);
  t.ok(await until(() => runner.status().counters.reconnects >= 4));
  await runner.stop();
  t.equal(runner.status().state, 'OFFLINE');
  const delays = deps.log.entries.filter((e) => e.msg === 'camera unreachable; reconnecting').map((e) => e.obj.delayMs);
  t.same(delays.slice(0, 4), [10, 20, 40, 80]);

  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 33 });
  t.teardown(() => nvr.close());
  const denied = startVendorBPush(config(nvr.port, { token: 'wrong' }), memoryDeps());
  t.ok(await until(() => denied.status().counters.reconnects >= 2));
  await denied.stop();
  t.equal(denied.status().state, 'OFFLINE');
  t.match(denied.status().lastError, /401/);
});

t.test('self-signed console over wss: accepted by default, refused when verification is on', async (t) => {
  const nvr = await startVendorBNvr({ ...nvrOptions, seed: 34, tls: true, unknownRate: 0 });
  t.teardown(() => nvr.close());
  const deps = memoryDeps();
  const runner = startVendorBPush(config(nvr.port, { tls: undefined }), deps);
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().state === 'ONLINE'), 'wss with a self-signed certificate');
  nvr.addReads(3);
  await nvr.idle();
  t.ok(await deps.sink.waitFor(3), 'reads and thumbnails over TLS');
  t.equal(deps.sink.items.filter((i) => i.images.full_scene).length, 3);
  await runner.stop();

  const strict = startVendorBPush(config(nvr.port, { tls: undefined, verifyTls: true }), memoryDeps());
  t.ok(await until(() => strict.status().counters.reconnects >= 1));
  await strict.stop();
  t.equal(strict.status().state, 'OFFLINE');
  t.match(strict.status().lastError, /certificate/i);
});
