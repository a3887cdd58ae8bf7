/**
 * The pulled vendor_b camera's cursor time (status.cursorCurrentAt, the heartbeat's
 * cursor_age_seconds): current while nothing newer waits, held while the camera lists newer
 * events the cursor cannot pass. The console simulator and the runner share one clock the
 * test moves; "later polls" are counted by the runner's clock reads, not by waiting.
 */
import t from 'tap';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { cameraConfigSchema } from './config.ts';
import { memoryDeps, until } from './memory.test-helper.ts';
import { startVendorBPull } from './vendor-b-pull.ts';

function sharedClock(start: number) {
  let at = start;
  let reads = 0;
  return {
    now: () => {
      reads += 1;
      return at;
    },
    set: (ms: number) => (at = ms),
    reads: () => reads,
  };
}

const config = (port: number) =>
  cameraConfigSchema.parse({ id: 'nvr-1', vendor: 'vendor_b', mode: 'pull', host: '127.0.0.1', port, tls: false, token: 'sim-token', pollIntervalMs: 20 });

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

async function afterPolls(clock: ReturnType<typeof sharedClock>, n: number): Promise<boolean> {
  const from = clock.reads();
  return until(() => clock.reads() >= from + n);
}

t.test('a quiet camera: the cursor stays current though it does not move (no cursor_stuck at night)', async (t) => {
  const clock = sharedClock(T0);
  const nvr = await startVendorBNvr({ ratePerSecond: 0, cameraCount: 1, motionRate: 0, now: clock.now });
  t.teardown(() => nvr.close());
  const runner = startVendorBPull(config(nvr.port), memoryDeps({ clock }));
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().cursorCurrentAt === iso(T0)), 'current after the first answered pull');
  clock.set(T0 + 3_600_000);
  t.ok(await until(() => runner.status().cursorCurrentAt === iso(T0 + 3_600_000)), 'an hour later, still current: nothing newer waited');
  t.equal(runner.status().state, 'ONLINE');
});

t.test('an event that never ends holds the cursor while newer ones wait: the cursor time stays where it last moved', async (t) => {
  const clock = sharedClock(T0);
  // Plates at once, ends an hour away: both events stay open.
  const nvr = await startVendorBNvr({ ratePerSecond: 0, cameraCount: 1, motionRate: 0, legacyRate: 0, plateDelayMs: 1, endDelayMs: 3_600_000, now: clock.now });
  t.teardown(() => nvr.close());
  nvr.addReads(1);
  clock.set(T0 + 1000);
  nvr.addReads(1);
  clock.set(T0 + 2000);
  await until(() => [...nvr.events.values()].every((e) => e.smartDetectTypes.length > 0));
  const runner = startVendorBPull(config(nvr.port), memoryDeps({ clock }));
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().cursorCurrentAt === iso(T0 + 2000)), 'moved to the open event at the first pull');
  clock.set(T0 + 3_600_000 - 1000);
  t.ok(await afterPolls(clock, 20), 'the runner kept pulling');
  t.equal(runner.status().cursorCurrentAt, iso(T0 + 2000), 'held: a newer event waits behind the open one');
  t.equal(runner.status().state, 'ONLINE', 'online all along: the hub may call it stuck after 30 minutes');
});
