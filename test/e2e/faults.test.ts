/**
 * Issue 4 fault test: the hub is down for a long outage, the appliance is killed with
 * SIGKILL again and again while cameras deliver and while it uploads, and the hub itself is
 * killed and restarted mid-batch. Afterwards the hub must hold every sighting the cameras
 * delivered (and the appliance acknowledged) exactly once. `ALPR_FAULT_CYCLES` raises the
 * cycle count for a soak run (scripts/soak-faults.sh); the test default is 50.
 */
import t from 'tap';
import { applianceToml } from '../../scripts/demo/appliance-toml.ts';
import { sha256 } from '../../scripts/simulators/plates.ts';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../../scripts/simulators/vendor-b-nvr.ts';
import { applianceUnderTest, waitFor } from './appliance-under-test.ts';
import { compareWithHub, expectedSightings, type HubRow } from './expectations.ts';
import { chainProblems, hubUnderTest, readHoldings, traced } from './hub-under-test.ts';

const CYCLES = Number(process.env['ALPR_FAULT_CYCLES'] ?? 50);
const FAST = ['pollIntervalMs = 200', 'backoffBaseMs = 100', 'backoffCapMs = 1000'].join('\n');

t.test(`nothing lost, nothing duplicated across ${CYCLES} SIGKILLs and hub outages`, { timeout: 900_000 }, async (t) => {
  const began = Date.now();
  const mark = (what: string): void => t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  const hub = await hubUnderTest(t);
  await hub.stop();
  mark('hub claimed, then taken down: the outage begins');

  const perSecond = 2.5;
  const pullCamera = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: perSecond, count: 120, seed: 21 });
  const nvr = await startVendorBNvr({ token: 'demo-token', ratePerSecond: 1, count: 40, seed: 22, dropEvery: 9, plateDelayMs: 50, endDelayMs: 150 });
  t.teardown(traced('close cameras', () => Promise.allSettled([pullCamera.close(), nvr.close()])));
  const appliance = await applianceUnderTest(t, hub.enrollment.api_key, (port) =>
    applianceToml(hub.url, port, { vendorAPullUrl: pullCamera.url, vendorAMac: pullCamera.mac, nvrUrl: nvr.url, nvrToken: 'demo-token' })
      .replace('[uplink]\nwindow_seconds = 5', '[uplink]\nwindow_seconds = 5\nbackoff_base_ms = 200\nbackoff_cap_ms = 2000\nmax_batch_detections = 10')
      .replace(/mode = "pull"\n/, `mode = "pull"\n${FAST}\n`));
  const pusher = await startVendorACamera({
    mode: 'push', pushUrl: `${appliance.url}/api/v1/ingest/auto`, mac: '02:00:00:00:00:aa', ratePerSecond: perSecond, count: 120, seed: 23,
    pushFormat: 'multipart', pushRetries: 400, pushRetryDelayMs: 100,
  });
  t.teardown(traced('close pusher', () => pusher.close()));

  let kills = 0;
  let hubKills = 0;
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    // The hub comes back a third of the way in, is killed mid-batch, and comes back again.
    if (cycle === Math.ceil(CYCLES / 3) && !hub.running()) await hub.start();
    if (cycle === Math.ceil((2 * CYCLES) / 3) && hub.running()) {
      await hub.kill();
      hubKills++;
    }
    if (cycle === Math.ceil((2 * CYCLES) / 3) + 3 && !hub.running()) await hub.start();
    await appliance.start();
    await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 900)));
    await appliance.kill();
    kills++;
  }
  mark(`${kills} appliance SIGKILLs, ${hubKills} hub SIGKILL`);
  if (!hub.running()) await hub.start();
  await appliance.start();
  await Promise.all([pullCamera.idle(), nvr.idle(), pusher.idle()]);
  mark('cameras finished');

  let delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  let expected = expectedSightings(delivered);
  // A push the appliance committed but whose 2xx died with it may also arrive: allowed once.
  const extras = expectedSightings(pusher.produced.map(({ uuid, read }) => ({
    detectionId: uuid, plate: read.plate, unknown: read.unknown, time: '', mac: '',
    images: { ...(read.crop.length ? { plateCrop: sha256(read.crop) } : {}), ...(read.scene.length ? { fullScene: sha256(read.scene) } : {}) },
  })));
  const drained = await waitFor(async () => {
    // The pull camera hands out its last reads only when the appliance next polls.
    if (pullCamera.delivered.length < pullCamera.produced.length) return false;
    return (await appliance.buffered()) === 0;
  }, 180_000, 1000);
  delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  expected = expectedSightings(delivered);
  mark('drained');
  await appliance.stop();
  // Read after stopping the hub: PGlite allows one process per data folder.
  const holdings = await hub.inspect((db) => readHoldings<HubRow>(db, 'SELECT detection_id, plate_number, crop_image_hash, full_image_hash FROM detections'));
  const rows = holdings.rows;
  t.ok(drained, 'the appliance buffer drained');
  t.ok(rows.length >= expected.size, `hub (${hub.database}) holds ${rows.length} rows for ${expected.size} delivered sightings`);
  t.ok(expected.size >= 150, `cameras delivered ${delivered.length} reads (${expected.size} sightings)`);
  t.equal(kills, CYCLES, 'appliance killed every cycle');
  t.same(compareWithHub(expected, rows, extras), [], 'every delivered sighting exactly once, nothing else');
  t.equal(pusher.undelivered.length, 0, 'the push camera got every read acknowledged in the end');
  t.same(chainProblems(holdings), [], 'every collector\'s hash chain verifies and covers every row');
  t.comment(`RESULT database=${hub.database} cycles=${kills} hub_kills=${hubKills} delivered=${delivered.length} sightings=${expected.size} hub_rows=${rows.length}`);
  if (!t.passing()) t.comment(appliance.output().slice(-4000));
});
