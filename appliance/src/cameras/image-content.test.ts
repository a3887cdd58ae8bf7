import t from 'tap';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { cameraConfigSchema } from './config.ts';
import { systemClock } from './ports.ts';
import { createStatusTracker } from './status.ts';
import { memoryDeps, memoryLog, memorySink } from './memory.test-helper.ts';
import { createIngestApp } from './vendor-a-push.ts';
import { startVendorAPull } from './vendor-a-pull.ts';

const gate = cameraConfigSchema.parse({ id: 'gate-mislabel', vendor: 'vendor_a', mode: 'push', mac: '00:11:22:aa:bb:dd' });

t.test('a camera that labels text as image/jpeg and sends make codes: every read kept, the fake image dropped and counted, codes never digits', async (t) => {
  const sink = memorySink();
  const log = memoryLog();
  const status = createStatusTracker({ id: gate.id, name: gate.id, vendor: 'vendor_a', mode: 'push' }, systemClock);
  const app = createIngestApp({ cameras: () => [gate], sink, log, clock: systemClock, statusOf: (id) => (id === gate.id ? status : undefined) });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const camera = await startVendorACamera({
    mode: 'push',
    pushUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/ingest/vendor_a`,
    pushFormat: 'multipart',
    mac: '00:11:22:aa:bb:dd',
    ratePerSecond: 0,
    seed: 5,
    emptyImageRate: 0,
    mislabelledImageRate: 1,
    pushRetryDelayMs: 10,
  });
  t.teardown(() => camera.close());
  camera.addReads(6);
  await camera.idle();
  const readable = camera.delivered.filter((d) => !d.unknown);
  t.ok(readable.length > 0, 'some readable reads were pushed');
  t.same(sink.ids().sort(), readable.map((d) => d.detectionId).sort(), 'every readable read stored');
  for (const d of readable) {
    t.equal(sink.imageHash(d.detectionId, 'plate_crop'), undefined, 'the 11-byte text part is not stored as an image');
    t.equal(sink.imageHash(d.detectionId, 'full_scene'), d.images.fullScene, 'the real scene is kept');
    t.ok(d.images.fullScene, 'the scene was sent');
  }
  t.equal(status.snapshot().counters.imagesNotImages, readable.length, 'one dropped image counted per read');
  // The same camera sends numeric make codes (1036, 1060, 1000, 1024) and model code 0.
  for (const item of sink.items) {
    t.ok([undefined, 'Mercedes-Benz', 'Toyota'].includes(item.detection.vehicle?.brand), `make is a name or nothing (${item.detection.vehicle?.brand})`);
    t.equal(item.detection.vehicle?.model, undefined, 'model code 0 is never a model');
  }
  t.ok(
    log.entries.some((e) => e.msg === 'image part is not an image; keeping the detection without it'),
    'and logged',
  );
});

t.test('a pull camera whose plate image URL answers text as image/jpeg: reads kept, those images dropped and counted', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, oldCopyRate: 0, unknownRate: 0, seed: 9, mislabelledImageRate: 0.5 });
  t.teardown(() => camera.close());
  const cfg = cameraConfigSchema.parse({
    id: 'gate-pull',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '127.0.0.1',
    port: camera.port,
    username: 'admin',
    password: 'admin12345',
    pollIntervalMs: 50,
    backoffBaseMs: 10,
    backoffCapMs: 80,
  });
  const sink = memorySink();
  camera.addReads(12);
  const runner = startVendorAPull(cfg, memoryDeps({ sink }));
  t.teardown(() => runner.stop());
  t.ok(await sink.waitFor(12), 'every read delivered');
  await runner.stop();
  const withoutImage = camera.delivered.filter((d) => d.images.plateCrop === undefined);
  t.ok(withoutImage.length > 0 && withoutImage.length < 12, `some images were text (${withoutImage.length} of 12)`);
  for (const d of camera.delivered) t.equal(sink.imageHash(d.detectionId, 'plate_crop'), d.images.plateCrop, `crop of ${d.detectionId}: real or none`);
  t.equal(runner.status().counters.imagesNotImages, withoutImage.length);
  t.equal(runner.status().counters.imageFailures, 0, 'a text answer is not a failed download');
});
