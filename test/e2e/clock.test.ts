/**
 * Issue 20 with real processes: a real appliance process pulls from a vendor_a camera whose
 * clock is 8 years ahead (no re-reads: the 30 s dedupe is not under test here); a real hub stores every read exactly once
 * with its true time (within 2 s), the camera's own time in `attributes.camera_time`, and the
 * appliance's diagnostics JSON names the clock.
 */
import t from 'tap';
import { request } from 'undici';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { applianceUnderTest, hubLinkedToml, waitFor } from './appliance-under-test.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { STATUS_PATH } from '../../appliance/src/http/local-paths.ts';

const YEAR = 365.25 * 86_400_000;

t.test('a pull camera 8 years ahead: every read at the hub once, at its true time', { timeout: 240_000 }, async (t) => {
  const hub = await hubUnderTest(t);
  const camera = await startVendorACamera({
    username: 'admin',
    password: 'demo-password',
    ratePerSecond: 10,
    count: 30,
    seed: 31,
    oldCopyRate: 0.1,
    repeatRate: 0,
    cropBytes: 400,
    sceneBytes: 400,
    timezone: 'Europe/Paris',
    clockOffsetMs: 8 * YEAR,
  });
  t.teardown(traced('close camera', () => camera.close()));
  const pull = new URL(camera.url);
  const appliance = await applianceUnderTest(
    t,
    hub.enrollment.api_key,
    hubLinkedToml(
      hub.url,
      '[[cameras]]',
      'id = "ahead"',
      'vendor = "vendor_a"',
      'mode = "pull"',
      `host = "${pull.hostname}"`,
      `port = ${pull.port}`,
      'username = "admin"',
      'password = "demo-password"',
      `mac = "${camera.mac}"`,
      'timezone = "Europe/Paris"',
      'pollIntervalMs = 200',
    ),
  );
  await appliance.start();
  await camera.idle();
  const ids = () => camera.produced.filter((r) => !r.read.unknown).map((r) => r.picName);
  t.ok(
    await waitFor(
      async () => camera.delivered.length >= camera.produced.length && appliance.unseen(ids()).length === 0 && (await appliance.buffered()) === 0,
      90_000,
    ),
    'the appliance has every read and uploaded it',
  );
  const status = (await (await request(`${appliance.url}${STATUS_PATH}`)).body.json()) as {
    cameras: Array<{ id: string; clock: { offsetMs: number; warnings: string[] } | null }>;
  };
  const clock = status.cameras.find((c) => c.id === 'ahead')?.clock;
  t.ok(Math.abs((clock?.offsetMs ?? 0) - 8 * YEAR) < 2_000, `offset measured: ${clock?.offsetMs} ms`);
  t.match(clock?.warnings.join(' '), /8 years ahead/);
  await appliance.stop();
  const rows = await hub.inspect((db) =>
    db.sql<{ detection_id: string; captured_at: Date; attributes: { camera_time?: string } | null }>(
      'SELECT detection_id, captured_at, attributes FROM detections',
    ),
  );
  const expected = camera.produced.filter((r) => !r.read.unknown);
  t.same(rows.map((r) => r.detection_id).sort(), expected.map((r) => r.picName).sort(), `all ${expected.length} readable reads, each once`);
  const worst = Math.max(...rows.map((r) => Math.abs(new Date(r.captured_at).getTime() - (expected.find((e) => e.picName === r.detection_id)?.trueMs ?? NaN))));
  t.ok(worst < 2_000, `stored at their true time (worst ${worst} ms)`);
  t.ok(
    rows.every((r) => Math.abs(Date.parse(r.attributes?.camera_time ?? '') - new Date(r.captured_at).getTime() - 8 * YEAR) < 2_000),
    "with the camera's own time beside it",
  );
});
