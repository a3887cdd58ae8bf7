/**
 * Issue 4 end to end: a real hub (real Postgres under CI), a real appliance process and the
 * camera simulators on loopback. Every simulated plate must arrive on the hub exactly once,
 * with its images and their hashes intact.
 */
import t from 'tap';
import { applianceToml } from '../../scripts/demo/appliance-toml.ts';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../../scripts/simulators/vendor-b-nvr.ts';
import { applianceUnderTest, waitFor } from './appliance-under-test.ts';
import { compareWithHub, expectedSightings, readIds, type HubRow } from './expectations.ts';
import { chainProblems, hubUnderTest, readHoldings, traced } from './hub-under-test.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const FAST = ['pollIntervalMs = 200', 'backoffBaseMs = 100', 'backoffCapMs = 1000'].join('\n');

t.test('every plate from three cameras arrives on the hub exactly once, images intact', { timeout: 240_000 }, async (t) => {
  const began = Date.now();
  const mark = (what: string): void => t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  const hub = await hubUnderTest(t);
  mark('hub up, collector claimed');
  const pullCamera = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: 20, count: 25, seed: 11 });
  const nvr = await startVendorBNvr({ token: 'demo-token', ratePerSecond: 10, count: 15, seed: 12, dropEvery: 7, plateDelayMs: 50, endDelayMs: 150 });
  t.teardown(traced('close cameras', () => Promise.allSettled([pullCamera.close(), nvr.close()])));
  const appliance = await applianceUnderTest(t, hub.enrollment.api_key, (port) =>
    applianceToml(hub.url, port, { vendorAPullUrl: pullCamera.url, vendorAMac: pullCamera.mac, nvrUrl: nvr.url, nvrToken: 'demo-token' })
      .replace('[uplink]\nwindow_seconds = 5', '[uplink]\nwindow_seconds = 5\nbackoff_base_ms = 200\nbackoff_cap_ms = 2000')
      .replace(/mode = "pull"\n/, `mode = "pull"\n${FAST}\n`),
  );
  await appliance.start();
  mark('appliance up');
  const pusher = await startVendorACamera({
    mode: 'push',
    pushUrl: `${appliance.url}${pushPath('auto')}`,
    mac: '02:00:00:00:00:aa',
    ratePerSecond: 20,
    count: 20,
    seed: 13,
    pushFormat: 'multipart',
    pushRetries: 10,
    pushRetryDelayMs: 200,
  });
  t.teardown(traced('close pusher', () => pusher.close()));
  await Promise.all([pullCamera.idle(), nvr.idle(), pusher.idle()]);

  mark('cameras done');
  let delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  let expected = expectedSightings(delivered);
  t.ok(expected.size >= 40, `cameras delivered ${delivered.length} reads, ${expected.size} sightings`);
  // Every read the appliance acknowledged to a camera has left its buffer once the hub
  // acknowledged it: then the hub is stopped and its database read (never two processes on
  // one PGlite folder).
  const drained = await waitFor(
    async () => {
      if (pullCamera.delivered.length < pullCamera.produced.length) return false;
      // An empty buffer is not enough: the NVR socket runner may not have committed its last events.
      if (appliance.unseen(readIds([...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered])).length > 0) return false;
      return (await appliance.buffered()) === 0;
    },
    90_000,
    500,
  );
  delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  expected = expectedSightings(delivered);
  await appliance.stop();
  const holdings = await hub.inspect((db) => readHoldings<HubRow>(db, 'SELECT detection_id, plate_number, crop_image_hash, full_image_hash FROM detections'));
  const rows = holdings.rows;
  mark(`hub caught up (${hub.database})`);
  t.ok(drained, 'the appliance buffer drained');
  t.equal(rows.length, expected.size, `hub holds ${rows.length} of ${expected.size} sightings`);
  const problems = compareWithHub(expected, rows);
  for (const p of problems) {
    const plate = p.split(':')[0] ?? '';
    for (const [name, cam] of [
      ['pull', pullCamera.delivered],
      ['nvr', nvr.delivered],
      ['push', pusher.delivered],
    ] as const) {
      const hit = cam.find((r) => r.plate.replace(/[^A-Z0-9]/g, '') === plate);
      if (hit) t.comment(`${p}: from ${name}: ${JSON.stringify(hit)}`);
    }
  }
  t.same(problems, [], 'hub matches the cameras exactly');
  t.equal(pusher.undelivered.length, 0, 'every push was acknowledged');
  t.same(chainProblems(holdings), [], "every collector's hash chain verifies and covers every stored detection");
  if (t.passing() === false) t.comment(appliance.output().slice(-3000));
});
