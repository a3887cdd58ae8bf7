import t from 'tap';
import type { Test } from 'tap';
import { startVendorACamera, type VendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { cameraConfigSchema } from './config.ts';
import { memoryDeps, memorySink, until, type MemorySink } from './memory.test-helper.ts';
import { startVendorAPull } from './vendor-a-pull.ts';

/**
 * Issue 20: cameras with wrong clocks, against the real runner and the simulator over HTTP
 * with Digest auth. Each must deliver every read exactly once, stamped within 2 s of the
 * true time, and say what is wrong with its clock.
 */
const YEAR = 365.25 * 86_400_000;

async function run(t: Test, clockOffsetMs: number, timezone = 'Europe/Paris', cameraTimezone = timezone) {
  const camera = await startVendorACamera({
    ratePerSecond: 0,
    oldCopyRate: 0,
    unknownRate: 0,
    repeatRate: 0,
    seed: 5,
    cropBytes: 300,
    sceneBytes: 300,
    timezone: cameraTimezone,
    clockOffsetMs,
  });
  t.teardown(() => camera.close());
  const cfg = cameraConfigSchema.parse({
    id: 'gate',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '127.0.0.1',
    port: camera.port,
    username: 'admin',
    password: 'admin12345',
    timezone,
    pollIntervalMs: 40,
    clockCheckMs: 100,
    backoffBaseMs: 10,
    backoffCapMs: 80,
    initialBacklogMs: 60_000,
  });
  const sink = memorySink();
  const runner = startVendorAPull(cfg, memoryDeps({ sink }));
  t.teardown(() => runner.stop());
  return { camera, sink, runner };
}

function checkDelivery(t: Test, camera: VendorACamera, sink: MemorySink): void {
  const expected = camera.produced;
  t.same(sink.ids().sort(), expected.map((r) => r.picName).sort(), `all ${expected.length} reads, each once`);
  t.equal(sink.calls, expected.length, 'none handed to the buffer twice');
  const worst = Math.max(
    ...sink.items.map((item) => {
      const entry = expected.find((r) => r.picName === item.detection.detection_id);
      return Math.abs(Date.parse(item.detection.timestamp) - (entry?.trueMs ?? NaN));
    }),
  );
  t.ok(worst < 2_000, `capture times within 2 s of true (worst ${worst} ms)`);
}

async function produce(camera: VendorACamera, sink: MemorySink, n: number): Promise<boolean> {
  camera.addReads(n);
  return sink.waitFor(camera.produced.length, 15_000);
}

for (const [name, offset, warning] of [
  ['26 years behind', -26 * YEAR, /clock is 26 years behind/],
  ['8 years ahead', 8 * YEAR, /clock is 8 years ahead/],
  ['90 s ahead', 90_000, /clock is 2 minutes ahead|clock is 90 seconds ahead|clock is 1 minute ahead/],
] as const) {
  t.test(`a camera ${name}: every read once, corrected, and a warning`, async (t) => {
    const { camera, sink, runner } = await run(t, offset);
    t.ok(await until(() => runner.status().clock !== null), 'clock measured');
    t.ok(await produce(camera, sink, 12), 'first reads');
    t.ok(await produce(camera, sink, 12), 'more reads');
    checkDelivery(t, camera, sink);
    const status = runner.status();
    t.ok(Math.abs((status.clock?.offsetMs ?? 0) - offset) < 1_500, `offset measured ${status.clock?.offsetMs} ms`);
    if (Math.abs(offset) > 120_000) t.match(status.clock?.warnings.join(' '), warning);
    t.equal(status.counters.timesCorrected, camera.produced.length, 'every read corrected');
  });
}

t.test('summer time ends on the camera: the repeated hour is not skipped', async (t) => {
  // The camera's clock (Europe/Paris) 4 s before 03:00 CEST on 2026-10-25, when it goes back to 02:00 CET.
  const target = Date.parse('2026-10-25T00:59:56Z');
  const offset = target - Date.now();
  const { camera, sink, runner } = await run(t, offset);
  t.ok(await until(() => runner.status().clock !== null));
  t.ok(await produce(camera, sink, 5), 'reads before the change (02:59 CEST)');
  // Until the camera's clock is past 03:00 CEST (not a fixed 4.5 s: the reads above took some of it).
  const change = Date.parse('2026-10-25T01:00:00Z');
  t.ok(await until(() => Date.now() + offset >= change + 500, 10_000), "the camera's clock passed the change");
  t.ok(await produce(camera, sink, 5), 'reads after the change (02:00 CET): picNames below the cursor');
  t.ok(camera.produced.at(-1)?.picName.startsWith('2026102502000'), `the camera's picNames went back (${camera.produced.at(-1)?.picName})`);
  checkDelivery(t, camera, sink);
  t.ok(runner.status().counters.clockRewinds >= 1, 'the cursor was rewound');
});

t.test('a clock corrected from 8 years ahead to true while running: nothing lost or misdated', async (t) => {
  const { camera, sink, runner } = await run(t, 8 * YEAR);
  t.ok(await until(() => runner.status().clock !== null));
  t.ok(await produce(camera, sink, 10), 'reads under the wrong clock');
  camera.setClockOffset(0);
  t.ok(await produce(camera, sink, 10), 'reads after the correction');
  t.ok(await until(() => Math.abs(runner.status().clock?.offsetMs ?? YEAR) < 1_500), 'the new offset is measured');
  t.ok(await produce(camera, sink, 10), 'and more');
  checkDelivery(t, camera, sink);
  t.ok(runner.status().counters.clockRewinds >= 1, 'the cursor followed the clock back');
  t.same(runner.status().clock?.warnings, [], 'no warning once the clock is right');
});

t.test('a camera without summer time in a zone that has it is named', async (t) => {
  // The site is in Europe/Oslo (+02:00 in June); the camera runs a fixed +01:00 zone.
  const { camera, sink, runner } = await run(t, 0, 'Europe/Oslo', 'Etc/GMT-1');
  t.ok(await until(() => runner.status().clock !== null));
  const clock = runner.status().clock;
  t.equal(clock?.utcOffset, '+01:00');
  if (new Date().getUTCMonth() >= 3 && new Date().getUTCMonth() <= 8) {
    t.match(clock?.warnings.join(' '), /reports \+01:00 but Europe\/Oslo is \+02:00 on this date: summer time is switched off/);
  } else {
    t.same(clock?.warnings, [], 'in winter Oslo is +01:00 too: nothing to say');
  }
  t.ok(await produce(camera, sink, 5), 'its reads still arrive (the offset it sends is its own)');
  checkDelivery(t, camera, sink);
});
