import t from 'tap';
import type { Test } from 'tap';
import jpeg from 'jpeg-js';
import { startSnapshotCamera as startSimulator } from '../../../scripts/simulators/snapshot-camera.ts';
import type { SnapshotCameraOptions } from '../../../scripts/simulators/snapshot-camera.ts';
import { drawnPassages } from '../../../scripts/simulators/snapshot-scenes.ts';
import { cameraConfigSchema } from './config.ts';
import { openFrameJobs } from './frame-jobs.ts';
import type { CameraConfigInput } from './config.ts';
import { memoryDeps, sha256, until } from './memory.test-helper.ts';
import { startCameraRunners } from './runner.ts';
import type { FrameReader, FrameResult } from '../reader/types.ts';
import { ReaderError } from '../reader/types.ts';

/**
 * The ordinary-camera kind against the snapshot-camera simulator over loopback HTTP (Digest,
 * Basic, faults), the real frame worker, and a reader written for the test: it knows the drawn
 * pictures by their bytes (the plate each shows), so what is tested here is the camera's part
 * (taking frames, the change check, one frame in the reader at a time, voting, the detection and
 * its images), not the OCR. The real reader is exercised end to end in test/e2e/ordinary-camera.test.ts.
 */

const BOX = { x: 160, y: 236, width: 240, height: 80 };

// One frame worker for the whole file: started through tsx (a worker does not inherit the
// loader) it takes 1-3 s before its first frame, which each test paid again before.
const frames = openFrameJobs();
t.teardown(() => frames.close());

function knowingReader(passages: { jpeg: Buffer; plate: string | null }[], options: { variantEvery?: number; delayMs?: number } = {}) {
  const plates = new Map(passages.map((p) => [sha256(p.jpeg), p.plate]));
  const calls = { total: 0, plates: 0, concurrent: 0, maxConcurrent: 0 };
  const perPlate = new Map<string, number>();
  const reader: FrameReader = {
    async read(bytes): Promise<FrameResult> {
      calls.total += 1;
      calls.concurrent += 1;
      calls.maxConcurrent = Math.max(calls.maxConcurrent, calls.concurrent);
      try {
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
        const plate = plates.get(sha256(bytes));
        if (!plate) return { plates: [], width: 640, height: 360, ms: 1 };
        calls.plates += 1;
        const nth = (perPlate.get(plate) ?? 0) + 1;
        perPlate.set(plate, nth);
        // Every n-th read of a plate gets the third character wrong, as OCR does now and then.
        const text = options.variantEvery && nth % options.variantEvery === 0 ? `${plate.slice(0, 2)}8${plate.slice(3)}` : plate;
        return { plates: [{ plate: text, confidence: 0.9, box: BOX, candidates: [] }], width: 640, height: 360, ms: 1 };
      } finally {
        calls.concurrent -= 1;
      }
    },
    close: async () => undefined,
  };
  return { reader, calls, perPlate };
}

async function setup(
  t: Test,
  sim: Omit<SnapshotCameraOptions, 'passages'> & { plates: string[] },
  camera: Partial<CameraConfigInput>,
  reader?: FrameReader | 'none',
  variantEvery?: number,
) {
  const passages = drawnPassages(sim.plates, 7);
  const simulator = await startSimulator({ holdMs: 900, gapMs: 600, once: true, ...sim, passages });
  t.teardown(() => simulator.close());
  const knowing = knowingReader(passages, variantEvery !== undefined ? { variantEvery } : {});
  const deps = memoryDeps();
  const config = cameraConfigSchema.parse({
    id: 'gate-cam',
    vendor: 'snapshot',
    mode: 'pull',
    snapshotUrl: simulator.snapshotUrl,
    username: 'admin',
    password: 'admin12345',
    framesPerSecond: 8,
    passageGapMs: 500,
    backoffBaseMs: 50,
    backoffCapMs: 200,
    ...camera,
  });
  const runners = startCameraRunners({ cameras: [config], ...deps, reader: reader === 'none' ? undefined : (reader ?? knowing.reader), frames });
  t.teardown(() => runners.stop());
  return { simulator, deps, runners, passages, calls: knowing.calls, perPlate: knowing.perPlate };
}

t.test('Digest camera: one detection per passage, voted plate, crop and scene JPEGs', async (t) => {
  // Threshold 0: every frame is read (the change check is the next test), and every third read
  // of a plate is wrong by one character, so the vote and the candidates have work to do. The
  // camera is paced by the reads (manual mode), so a loaded machine only makes it slower.
  const { simulator, deps, runners, passages, calls, perPlate } = await setup(
    t,
    { plates: ['AB12CDE', 'XY99ZZZ'], auth: 'digest', algorithm: 'SHA-256', manual: true },
    { changeThreshold: 0 },
    undefined,
    3,
  );
  for (const [i, plate] of ['AB12CDE', 'XY99ZZZ'].entries()) {
    simulator.show(i);
    t.ok(await until(() => (perPlate.get(plate) ?? 0) >= 4, 30_000), `${plate} read in several frames`);
    simulator.show(null);
    t.ok(await deps.sink.waitFor(i + 1, 30_000), `${plate}: its passage ended on the empty road`);
  }
  await runners.stop();
  const items = deps.sink.items;
  t.same(
    items.map((i) => i.detection.plate.text),
    ['AB12CDE', 'XY99ZZZ'],
    'one detection per passage, each with the plate most frames read',
  );
  t.equal(calls.maxConcurrent, 1, 'one frame at a time in the reader');
  const first = items[0];
  t.same(first?.detection.plate.candidates, [{ text: 'AB82CDE', confidence: 0.9 }], 'the OCR variant is a candidate');
  t.ok(
    (first?.detection.plate.confidence ?? 0) > 0.3 && (first?.detection.plate.confidence ?? 1) < 0.9,
    `confidence shows the disagreement: ${first?.detection.plate.confidence}`,
  );
  t.equal(first?.detection.camera.id, 'gate-cam');
  t.match(first?.detection.camera.mac, /^02[0-9a-f]{10}$/, 'a stable stand-in MAC');
  t.equal(sha256(first?.images.full_scene ?? new Uint8Array()), sha256(passages[0]?.jpeg ?? Buffer.alloc(0)), 'the scene is the frame as the camera sent it');
  const crop = jpeg.decode(first?.images.plate_crop ?? new Uint8Array(), { useTArray: true });
  t.equal(crop.width, BOX.width + BOX.height, 'the crop is the plate box widened by half its height each side');
  t.equal(crop.height, BOX.height * 2);
  const status = runners.statuses()[0];
  t.equal(status?.vendor, 'snapshot');
  t.equal(status?.counters.reads, 2);
  t.ok(simulator.counts().challenges >= 1, 'the camera asked for Digest first');
});

t.test('still frames skip the reader; a busy reader drops frames instead of queueing them', async (t) => {
  const passages = drawnPassages(['KL55MNO'], 3);
  const simulator = await startSimulator({ manual: true, auth: 'basic', passages });
  t.teardown(() => simulator.close());
  const slow = knowingReader(passages, { delayMs: 300 });
  const deps = memoryDeps();
  const config = cameraConfigSchema.parse({
    id: 'still',
    vendor: 'snapshot',
    mode: 'pull',
    snapshotUrl: simulator.snapshotUrl,
    username: 'admin',
    password: 'admin12345',
    framesPerSecond: 10,
    passageGapMs: 400,
  });
  const runners = startCameraRunners({ cameras: [config], ...deps, reader: slow.reader, frames });
  t.teardown(() => runners.stop());
  simulator.show(0);
  const counters = () => runners.lastFrame('still')?.counters;
  t.ok(await until(() => (counters()?.unchanged ?? 0) >= 5, 30_000), `unchanged frames skipped: ${counters()?.unchanged}`);
  simulator.show(null);
  t.ok(await deps.sink.waitFor(1, 30_000), 'the passage gave its detection');
  const seen = runners.lastFrame('still');
  t.ok((seen?.counters.dropped ?? 0) >= 1, `frames dropped while the reader was busy: ${seen?.counters.dropped}`);
  t.ok(slow.calls.total < (seen?.counters.taken ?? 0) / 2, `the reader saw only changed frames: ${slow.calls.total} of ${seen?.counters.taken}`);
  t.equal(slow.calls.maxConcurrent, 1);
  t.equal(deps.sink.items.length, 1);
  t.equal(seen?.frame?.width, 640, 'the last frame read is kept for the test button');
});

t.test('a passage ends while the road after it stays still', async (t) => {
  // The car is in view 1 s and read once; the road is read (changed) within the 2 s gap, then
  // stays the same for 10 s. The passage must end 2 s after its read, not at the next car.
  const { deps, simulator, calls } = await setup(t, { plates: ['GONE123'], auth: 'digest', manual: true }, { passageGapMs: 2_000, framesPerSecond: 4 });
  simulator.show(0);
  t.ok(await until(() => calls.plates >= 1, 30_000), 'the car was read');
  simulator.show(null);
  t.ok(await deps.sink.waitFor(1, 30_000), 'the detection arrives while the road is still in view');
  t.ok(calls.total <= 4, `no further reads needed to end it: ${calls.total} reads`);
});

t.test('faults: a frame that is not a JPEG, a wrong password, a slow camera, no reader', async (t) => {
  await t.test('not a JPEG: a clear error, the camera recovers and reads', async (t) => {
    const { deps, runners } = await setup(t, { plates: ['NJ12345'], auth: 'digest', notJpegEvery: 3, holdMs: 1_200 }, {});
    t.ok(await deps.sink.waitFor(1, 15_000), 'the read still arrives');
    t.match(runners.statuses()[0]?.lastError, /not a JPEG/);
  });
  await t.test('wrong password: OFFLINE, says the login was refused', async (t) => {
    const { runners } = await setup(t, { plates: ['PW12345'], auth: 'digest' }, { password: 'wrong' });
    t.ok(await until(() => runners.statuses()[0]?.state === 'OFFLINE', 10_000));
    t.match(runners.statuses()[0]?.lastError, /401.*login refused.*Digest/);
  });
  await t.test('slow camera: still read', async (t) => {
    const { deps } = await setup(
      t,
      { plates: ['SL12345'], auth: 'none', slowMs: 300, holdMs: 1_500 },
      { username: undefined, password: undefined, framesPerSecond: 4 },
    );
    t.ok(await deps.sink.waitFor(1, 15_000));
  });
  await t.test('no reader on this device: OFFLINE with the reason', async (t) => {
    const { runners } = await setup(t, { plates: ['NR12345'], auth: 'digest' }, {}, 'none');
    t.ok(await until(() => runners.statuses()[0]?.state === 'OFFLINE', 10_000));
    t.match(runners.statuses()[0]?.lastError, /no plate reader/);
  });
  await t.test('a missing model: OFFLINE naming the file', async (t) => {
    const broken: FrameReader = {
      read: () => Promise.reject(new ReaderError('model_missing', 'model file not found: det.onnx')),
      close: async () => undefined,
    };
    const { runners } = await setup(t, { plates: ['MM12345'], auth: 'digest' }, {}, broken);
    t.ok(await until(() => runners.statuses()[0]?.state === 'OFFLINE', 10_000));
    t.match(runners.statuses()[0]?.lastError, /det\.onnx/);
  });
});

t.test('no snapshot URL: the vendor paths are tried, the one that gives a JPEG is kept', async (t) => {
  const passages = drawnPassages(['DAHUA12'], 4);
  const simulator = await startSimulator({ manual: true, auth: 'digest', passages, path: '/cgi-bin/snapshot.cgi' });
  t.teardown(() => simulator.close());
  const deps = memoryDeps();
  const config = cameraConfigSchema.parse({
    id: 'dahua',
    vendor: 'snapshot',
    mode: 'pull',
    host: '127.0.0.1',
    port: simulator.port,
    username: 'admin',
    password: 'admin12345',
    passageGapMs: 300,
  });
  const runners = startCameraRunners({ cameras: [config], ...deps, reader: knowingReader(passages).reader, frames });
  t.teardown(() => runners.stop());
  t.ok(await until(() => runners.statuses()[0]?.state === 'ONLINE', 20_000), 'ONLINE on a Dahua path');
  t.equal(runners.lastFrame('dahua')?.url, `${simulator.url}/cgi-bin/snapshot.cgi`, 'the Hikvision path (404) passed over');
  simulator.show(0);
  t.ok(await until(() => (runners.lastFrame('dahua')?.frame?.plates.length ?? 0) > 0, 30_000), 'the car is read');
  simulator.show(null);
  t.ok(await deps.sink.waitFor(1, 30_000), 'its detection arrives');
});

t.test('config: the snapshot kind and its rules', async (t) => {
  const ok = cameraConfigSchema.safeParse({ id: 'a', vendor: 'snapshot', mode: 'pull', host: '10.0.0.5' });
  t.ok(ok.success);
  t.equal(ok.success ? ok.data.framesPerSecond : 0, 4, 'default 4 frames a second');
  t.ok(
    cameraConfigSchema.safeParse({ id: 'a', vendor: 'snapshot', mode: 'pull', snapshotUrl: 'http://10.0.0.5/snap.jpg' }).success,
    'an absolute URL needs no host',
  );
  t.ok(cameraConfigSchema.safeParse({ id: 'a', vendor: 'snapshot', mode: 'pull', rtspUrl: 'rtsp://10.0.0.5/stream1' }).success);
  const bad = [
    { id: 'a', vendor: 'snapshot', mode: 'push', host: 'x' },
    { id: 'a', vendor: 'snapshot', mode: 'pull' },
    { id: 'a', vendor: 'snapshot', mode: 'pull', host: 'x', framesPerSecond: 50 },
    { id: 'a', vendor: 'snapshot', mode: 'pull', host: 'x', snapshotUrl: 'javascript:alert(1)' },
    { id: 'a', vendor: 'snapshot', mode: 'pull', host: 'x', region: 'US; rm' },
    { id: 'a', vendor: 'snapshot', mode: 'pull', host: 'x', region: 'uk' },
    { id: 'a', vendor: 'vendor_a', mode: 'pull', host: 'x', username: 'u', snapshotUrl: '/snap.jpg' },
  ];
  for (const input of bad) t.notOk(cameraConfigSchema.safeParse(input).success, JSON.stringify(input));
  const unknownRegion = cameraConfigSchema.safeParse({ id: 'a', vendor: 'snapshot', mode: 'pull', host: 'x', region: 'uk' });
  t.match(
    unknownRegion.success ? '' : unknownRegion.error.issues[0]?.message,
    /region: one of us, eu, br/,
    'a region the reader does not know is named as such',
  );
});
