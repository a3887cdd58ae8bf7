import t from 'tap';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { cameraConfigSchema } from './config.ts';
import { systemClock } from './ports.ts';
import { createStatusTracker } from './status.ts';
import { memoryLog, memorySink } from './testing/memory.ts';
import { createIngestApp } from './vendor-a-push.ts';

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
  t.ok(log.entries.some((e) => e.msg === 'image part is not an image; keeping the detection without it'), 'and logged');
});
