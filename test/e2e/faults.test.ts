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
import { compareWithHub, expectedSightings, readIds, type HubRow } from './expectations.ts';
import { chainProblems, hubUnderTest, readHoldings, traced } from './hub-under-test.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const CYCLES = Number(process.env['ALPR_FAULT_CYCLES'] ?? 50);
/**
 * One cycle in which the appliance runs this long while the hub is up: longer than the 30 s
 * dedupe window by default; the soak sets 11 minutes, longer than the 10-minute read memory
 * that let old copies through (issue 17). The 8-day memory itself is pinned by the buffer's
 * unit tests with the injectable clock (appliance/src/buffer/old-copies.test.ts).
 */
const LONG_CYCLE_MS = Number(process.env['ALPR_FAULT_LONG_CYCLE_MS'] ?? 35_000);
/**
 * A cycle takes ~2 s (appliance start + 150-1,050 ms of work) on this 2-core machine when
 * quiet; at load average 3, ~3.4 s with the appliance started from the test's bundle
 * (appliance-bundle.ts) against ~6 s through tsx.
 */
const EXPECTED_RUN_S = CYCLES * 2 + LONG_CYCLE_MS / 1000;
const FAST = ['pollIntervalMs = 200', 'backoffBaseMs = 100', 'backoffCapMs = 1000'].join('\n');
/** Hub outages: a list of [cycle, action]; several downs and ups, two of them SIGKILLs mid-batch. */
const at = (share: number): number => Math.max(1, Math.ceil(CYCLES * share));
const HUB_PLAN = new Map<number, 'start' | 'stop' | 'kill'>([
  [at(1 / 6), 'start'],
  [at(2 / 6), 'kill'],
  [at(2 / 6) + 3, 'start'],
  [at(3 / 6), 'stop'],
  [at(4 / 6), 'start'],
  [at(5 / 6), 'kill'],
  [at(5 / 6) + 3, 'start'],
]);
/** While the hub is up (between 4/6 and 5/6), so the kept reads are uploaded and gone. */
const LONG_CYCLE = at(0.75);
/**
 * The time budget scales with the run: a ceiling against a hang, not a speed assertion. 10 s
 * a cycle covers a machine shared by a dozen test runs (a cycle took ~23 s at load average
 * 20 on 2 cores with the TypeScript loader, ~2 s on a quiet one).
 */
const BUDGET_MS = 300_000 + CYCLES * 10_000 + LONG_CYCLE_MS + 180_000;
// tap's per-file timeout (package.json, 600 s) still applies: t.setTimeout() in a file does not
// raise it (tried, tap 21), so scripts/soak-faults.sh passes --timeout for long runs.

t.test(`nothing lost, nothing duplicated across ${CYCLES} SIGKILLs and hub outages`, { timeout: BUDGET_MS }, async (t) => {
  const began = Date.now();
  const mark = (what: string): void => t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  const hub = await hubUnderTest(t);
  await hub.stop();
  mark('hub claimed, then taken down: the outage begins');

  // The cameras produce for the whole run (stopped when the cycles end); twice the expected
  // run is only a ceiling for a slow machine.
  const perSecond = 1;
  const ceiling = (rate: number): number => Math.ceil(rate * EXPECTED_RUN_S * 2);
  const pullCamera = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: perSecond, count: ceiling(perSecond), seed: 21 });
  const nvr = await startVendorBNvr({
    token: 'demo-token',
    ratePerSecond: 0.4,
    count: ceiling(0.4),
    seed: 22,
    dropEvery: 9,
    plateDelayMs: 50,
    endDelayMs: 150,
  });
  t.teardown(traced('close cameras', () => Promise.allSettled([pullCamera.close(), nvr.close()])));
  const appliance = await applianceUnderTest(t, hub.enrollment.api_key, (port) =>
    applianceToml(hub.url, port, { vendorAPullUrl: pullCamera.url, vendorAMac: pullCamera.mac, nvrUrl: nvr.url, nvrToken: 'demo-token' })
      .replace('[uplink]\nwindow_seconds = 5', '[uplink]\nwindow_seconds = 5\nbackoff_base_ms = 200\nbackoff_cap_ms = 2000\nmax_batch_detections = 10')
      .replace(/mode = "pull"\n/, `mode = "pull"\n${FAST}\n`),
  );
  const pusher = await startVendorACamera({
    mode: 'push',
    pushUrl: `${appliance.url}${pushPath('auto')}`,
    mac: '02:00:00:00:00:aa',
    ratePerSecond: perSecond,
    count: 120,
    seed: 23,
    pushFormat: 'multipart',
    pushRetries: 400,
    pushRetryDelayMs: 100,
  });
  t.teardown(traced('close pusher', () => pusher.close()));

  let kills = 0;
  let hubKills = 0;
  let hubStarts = 0;
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const action = HUB_PLAN.get(cycle);
    if (action === 'start' && !hub.running()) {
      await hub.start();
      hubStarts++;
      mark(`cycle ${cycle}: hub back`);
    }
    if (action === 'stop' && hub.running()) {
      await hub.stop();
      mark(`cycle ${cycle}: hub stopped`);
    }
    if (action === 'kill' && hub.running()) {
      await hub.kill();
      hubKills++;
      mark(`cycle ${cycle}: hub SIGKILL`);
    }
    await appliance.start();
    // A kill must land on an appliance at work. On a loaded machine a fresh process can take
    // seconds to reach its cameras (measured: at load average 20 no pull runner ever got a
    // page inside 150-1,050 ms), so wait (bounded) until the pull runner and the NVR socket
    // have answered once (the push camera has no runner to wait for).
    await waitFor(
      async () => {
        const states = await appliance.cameraStates();
        return states['gate-a'] === 'ONLINE' && states['nvr-b'] === 'ONLINE';
      },
      30_000,
      100,
    );
    const workMs = cycle === LONG_CYCLE ? LONG_CYCLE_MS : 150 + Math.floor(Math.random() * 900);
    if (cycle === LONG_CYCLE) mark(`cycle ${cycle}: the appliance runs ${workMs / 1000} s`);
    await new Promise((r) => setTimeout(r, workMs));
    await appliance.kill();
    kills++;
  }
  pullCamera.stopProducing();
  nvr.stopProducing();
  pusher.stopProducing();
  mark(`${kills} appliance SIGKILLs, ${hubKills} hub SIGKILLs, hub back ${hubStarts} times; cameras stop producing`);
  // The appliance first: a push camera retrying its last reads must not wait out a hub start.
  await appliance.start();
  if (!hub.running()) {
    await hub.start();
    hubStarts++;
  }
  await Promise.all([pullCamera.idle(), nvr.idle(), pusher.idle()]);
  mark('cameras finished');

  let delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  let expected = expectedSightings(delivered);
  // A push the appliance committed but whose 2xx died with it may also arrive: allowed once.
  const extras = expectedSightings(
    pusher.produced.map(({ uuid, read }) => ({
      detectionId: uuid,
      plate: read.plate,
      unknown: read.unknown,
      time: '',
      mac: '',
      images: { ...(read.crop.length ? { plateCrop: sha256(read.crop) } : {}), ...(read.scene.length ? { fullScene: sha256(read.scene) } : {}) },
    })),
  );
  let unseen: string[] = [];
  const drained = await waitFor(
    async () => {
      // The pull camera hands out its last reads only when the appliance next polls.
      if (pullCamera.delivered.length < pullCamera.produced.length) return false;
      // The NVR's last events may have ended while the appliance was down: its socket runner
      // catches up only once it has reconnected, which an empty buffer does not tell.
      unseen = appliance.unseen(readIds([...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered]));
      if (unseen.length > 0) return false;
      return (await appliance.buffered()) === 0;
    },
    180_000,
    1000,
  );
  delivered = [...pullCamera.delivered, ...nvr.delivered, ...pusher.delivered];
  expected = expectedSightings(delivered);
  mark('drained');
  await appliance.stop();
  // Read after stopping the hub: PGlite allows one process per data folder.
  const holdings = await hub.inspect((db) => readHoldings<HubRow>(db, 'SELECT detection_id, plate_number, crop_image_hash, full_image_hash FROM detections'));
  const rows = holdings.rows;
  t.ok(drained, `the appliance saw every delivered read and its buffer drained${unseen.length ? ` (never saw ${unseen.join(', ')})` : ''}`);
  t.ok(rows.length >= expected.size, `hub (${hub.database}) holds ${rows.length} rows for ${expected.size} delivered sightings`);
  t.ok(expected.size >= CYCLES, `cameras delivered ${delivered.length} reads (${expected.size} sightings)`);
  // A short development run squeezes the hub plan together; the default 50 cycles and more
  // have three outages (one graceful stop, two SIGKILLs mid-batch), each followed by a start.
  if (CYCLES >= 24) t.ok(hubStarts >= 3 && hubKills >= 2, `the hub came back ${hubStarts} times, after ${hubKills} SIGKILLs and a stop`);
  t.equal(kills, CYCLES, 'appliance killed every cycle');
  t.same(compareWithHub(expected, rows, extras), [], 'every delivered sighting exactly once, nothing else');
  t.equal(pusher.undelivered.length, 0, 'the push camera got every read acknowledged in the end');
  t.same(chainProblems(holdings), [], "every collector's hash chain verifies and covers every row");
  const lost = [...expected.keys()].filter((plate) => !rows.some((r) => r.plate_number === plate)).length;
  const duplicated = rows.length - new Set(rows.map((r) => r.plate_number)).size;
  t.comment(
    `RESULT database=${hub.database} cycles=${kills} long_cycle_s=${LONG_CYCLE_MS / 1000} hub_kills=${hubKills} hub_starts=${hubStarts} ` +
      `delivered=${delivered.length} sightings=${expected.size} hub_rows=${rows.length} lost=${lost} duplicated=${duplicated} ` +
      `seconds=${((Date.now() - began) / 1000).toFixed(0)}`,
  );
  if (!t.passing()) t.comment(appliance.output().slice(-4000));
});
