/**
 * Power cuts of the device (issue 36 item 8): not a SIGKILL of the service, whose writes the
 * kernel's page cache still finishes, but the whole machine gone at once. The qemu process is
 * killed with its disk opened `cache=writethrough`: a write the guest was told is done is on
 * the host's disk, anything still in the guest's page cache is lost, as in a real cut.
 *
 * One disk, booted again and again (the full UEFI path every time, docs/device-image.md
 * "Power cuts" says why): claimed once against a real hub on the host's loopback, then
 * ALPR_POWER_CUTS (default 20) cuts at seeded random moments (ALPR_POWER_CUT_SEED) while a
 * vendor_a camera pushes reads into the box and the box uploads them. One cut in five lands
 * during the boot itself. After the last cut: a clean boot, the buffer drains, and the hub must
 * hold every read the appliance acknowledged to the camera and every read the hub had
 * acknowledged after any cut, each exactly once, with every hash chain intact.
 * Not in `npm test` (tens of minutes of emulation). Writes image/out/power-cut-result.json.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { DbSession } from '../../hub/src/db/session.ts';
import { createPendingCollector } from '../../scripts/demo/enroll.ts';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { chainProblems, freePort, hubUnderTest, readHoldings, traced } from '../../test/e2e/hub-under-test.ts';
import { applianceAt, pending, until } from './appliance-over-forward.ts';
import { PUSH_MAC } from './guest-cameras.ts';
import { GuestShell } from './guest-shell.ts';
import { judge, seededRandom, type HubRow } from './power-cut-ledger.ts';
import { addSlowHostTimeouts } from './slow-host-timeouts.ts';
import { startVm, type Vm } from './qemu-vm.ts';

const root = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'appliance/package.json'), 'utf8')) as { version: string }).version;
const image = process.env['ALPR_IMAGE'] ?? join(root, 'image/out', `alpr-appliance-${version}-amd64.img.zst`);
const CUTS = Number(process.env['ALPR_POWER_CUTS'] ?? 20);
const SEED = Number(process.env['ALPR_POWER_CUT_SEED'] ?? 36);
const GUEST_HUB_URL = 'http://127.0.0.1:8090';
const CACHE = 'writethrough';
/** A cut lands 1 to 8 s after the box acknowledged its first push since the boot: posts and uploads in flight. */
const WINDOW_MIN_MS = 1000;
const WINDOW_SPAN_MS = 7000;
/**
 * One cut in five lands during the boot (fsck, WAL recovery, service start): 10 % to 100 % of
 * the way through the last boot that was timed. A fixed 5 to 60 s fitted emulated boots
 * (TCG, 60-300 s) but would mostly cut an idle, booted box under KVM.
 */
const BOOT_CUT_SHARE = 0.2;
const BOOT_CUT_FROM = 0.1;
/**
 * The camera keeps FEED_QUEUE reads unposted, topped up every FEED_EVERY_MS: a post is in
 * flight whenever the box is cut, however fast the guest answers. A fixed 3 reads a second
 * left the camera idle most of the time once a KVM guest answered a post in tens of ms.
 */
const FEED_EVERY_MS = 50;
const FEED_QUEUE = 5;
const say = (line: string): void => void process.stderr.write(`power-cut test: ${line}\n`);
const seconds = (ms: number): number => Number((ms / 1000).toFixed(1));
const load = (): number => Number((loadavg()[0] ?? 0).toFixed(1));

interface CutRecord {
  cut: number;
  where: 'service' | 'boot';
  /** Boot to the appliance answering claimed, for boots that got there (s). */
  bootS?: number;
  /** qemu start (boot cut) or the first acknowledged push after the boot (service cut) to the kill (s). */
  cutAfterS: number;
  acknowledgedInWindow: number;
  /** Reads the camera had not yet had answered when qemu was killed (service cuts). */
  postsInFlightAtCut?: number;
  pendingAtBoot?: number;
}

if (!existsSync(image)) {
  t.fail(`no image at ${image}: run npm run image first`);
} else {
  t.test(`${CUTS} power cuts of the device VM lose and double nothing`, async (t) => {
    const began = Date.now();
    const random = seededRandom(SEED);
    const work = await mkdtemp(join(tmpdir(), 'alpr-power-cut-'));
    t.teardown(traced('rm work folder', () => rm(work, { recursive: true, force: true })));
    const disk = join(work, 'disk.img');
    execFileSync('zstd', ['-q', '-d', '--sparse', image, '-o', disk]);
    await truncate(disk, 3 * 1024 ** 3);
    execFileSync(join(import.meta.dirname, 'add-test-overlay.sh'), [disk]);
    // A loaded host (a CI run boots other guests beside this one) made the first boot miss
    // systemd's 90 s wait for the data partition and stop in emergency mode.
    addSlowHostTimeouts(disk);

    let claimCode = '';
    const hub = await hubUnderTest(t, {
      env: { HUB_PUBLIC_URL: GUEST_HUB_URL },
      beforeStart: async (env) => void (claimCode = await createPendingCollector(env, 'Power cut site')),
    });
    const hubPort = Number(new URL(hub.url).port);
    const setupPort = await freePort();
    // No repeats or unknown plates: every read the box acknowledges must reach the hub as itself.
    const camera = await startVendorACamera({
      mode: 'push',
      pushUrl: `http://127.0.0.1:${setupPort}/api/v1/ingest/auto`,
      mac: PUSH_MAC,
      ratePerSecond: 0,
      seed: SEED,
      repeatRate: 0,
      unknownRate: 0,
      // The box is gone for a minute or more after a cut: give up quickly, unacknowledged.
      pushRetries: 0,
      // An emulated guest can take seconds to answer a post; a timeout counts as unacknowledged.
      pushTimeoutMs: 20_000,
    });
    t.teardown(traced('close camera', () => camera.close()));
    const appliance = applianceAt(setupPort);
    const serial = `QEMU-${randomBytes(4).toString('hex').toUpperCase()}`;

    let vm: Vm | undefined;
    t.teardown(() => vm?.kill());
    const boot = async (): Promise<{ vm: Vm; startedAt: number }> => {
      const startedAt = Date.now();
      const started = await startVm({
        disk,
        workDir: work,
        setupPort,
        serial,
        cache: CACHE,
        guestForwards: [{ guest: '10.0.2.100', guestPort: 80, hostPort: hubPort }],
      });
      return { vm: started, startedAt };
    };
    const failWithConsole = async (what: string): Promise<never> => {
      say(`serial console (last 3000 characters):\n${((await vm?.serialLog()) ?? '').slice(-3000)}`);
      throw new Error(what);
    };
    const cut = async (): Promise<void> => {
      const running = vm;
      vm = undefined;
      if (!running) return;
      running.kill();
      await running.exited;
    };
    const hubIds = new Set<string>();
    const collectorRows = (db: DbSession): Promise<HubRow[]> =>
      db.sql<HubRow>(
        `SELECT d.detection_id, d.plate_normalized, d.captured_at::text AS captured_at FROM detections d
           JOIN collectors c ON c.id = d.collector_id WHERE c.hardware_id = $1`,
        [`serial:${serial}`],
      );

    // First boot: claim, and the pushing camera in the box's configuration.
    let current = await boot();
    vm = current.vm;
    if (!(await until(async () => (await appliance.page()).status === 200, 600_000, 2000))) await failWithConsole('first boot: no setup page');
    const figures: Record<string, number> = { 'first boot to the setup page (s)': seconds(Date.now() - current.startedAt) };
    const accelerator = current.vm.accel;
    say(`first boot: setup page after ${figures['first boot to the setup page (s)']} s (${current.vm.accel}, load ${load()})`);
    /** The last boot timed (to the setup page, then to claimed status): boot cuts land within it. */
    let lastBootMs = Date.now() - current.startedAt;
    const shell = await GuestShell.connect(current.vm.shellSocket, 30_000);
    await shell.ready(180_000);
    const toml = [
      'log_level = "warn"',
      '[[cameras]]',
      'id = "entrance-push"',
      'vendor = "vendor_a"',
      'mode = "push"',
      `mac = "${PUSH_MAC}"`,
      'timezone = "Europe/Paris"',
      '',
    ].join('\n');
    // Written before the claim, which loads the cameras from it as it starts the claimed
    // loops (appliance/src/runtime/appliance.ts, onClaimed): no service restart, which cost a
    // node start (30-60 s) in the emulated guest. Its log_level applies from the next start.
    // sync: the configuration is the installer's, written before any cut.
    await shell.check(
      `echo ${Buffer.from(toml).toString('base64')} | base64 -d > /data/alpr/appliance.toml && chown alpr:alpr /data/alpr/appliance.toml && chmod 600 /data/alpr/appliance.toml && sync`,
    );
    shell.close();
    const claim = await appliance.claim(GUEST_HUB_URL, claimCode);
    t.equal(claim.status, 200, `claim answered ${claim.status} ${JSON.stringify(claim.body)}`);

    const answered = async (what: string): Promise<{ pending: number }> => {
      let last = '';
      const ok = await until(
        async () => {
          const s = await appliance.status();
          last = JSON.stringify({ claimed: s.claimed, warnings: s.warnings, buffer: s.buffer.states });
          return s.claimed;
        },
        600_000,
        2000,
      );
      if (!ok) await failWithConsole(`${what}: the appliance never answered claimed (last status ${last || 'none'})`);
      const s = await appliance.status();
      t.same(s.warnings, [], `${what}: no warnings (the vault and the buffer opened)`);
      return { pending: pending(s) };
    };
    await answered('after the claim');

    const cuts: CutRecord[] = [];
    const progressFile = join(root, 'image/out/power-cut-result.json');
    for (let n = 1; n <= CUTS; n++) {
      const atBoot = n > 1 && random() < BOOT_CUT_SHARE;
      const record: Omit<CutRecord, 'cutAfterS'> = { cut: n, where: atBoot ? 'boot' : 'service', acknowledgedInWindow: 0 };
      let cutAfterMs: number;
      if (atBoot) {
        cutAfterMs = lastBootMs * (BOOT_CUT_FROM + (1 - BOOT_CUT_FROM) * random());
        await new Promise((r) => setTimeout(r, Math.max(0, current.startedAt + cutAfterMs - Date.now())));
        await cut();
      } else {
        const up = await answered(`boot before cut ${n}`);
        if (n > 1) {
          lastBootMs = Date.now() - current.startedAt;
          record.bootS = seconds(lastBootMs);
        }
        record.pendingAtBoot = up.pending;
        const before = camera.delivered.length;
        cutAfterMs = WINDOW_MIN_MS + random() * WINDOW_SPAN_MS;
        const unanswered = (): number => camera.produced.length - camera.delivered.length - camera.undelivered.length;
        const feeder = setInterval(() => camera.addReads(Math.max(0, FEED_QUEUE - unanswered())), FEED_EVERY_MS);
        // The window opens at the box's first acknowledgement after the boot: on a loaded host
        // the first posts after a boot took longer than the whole window (0 acknowledged in 3 cuts).
        const ingesting = await until(async () => camera.delivered.length > before, 600_000, 500);
        if (!ingesting) {
          clearInterval(feeder);
          await failWithConsole(`boot before cut ${n}: the box acknowledged no push in 10 minutes`);
        }
        await new Promise((r) => setTimeout(r, cutAfterMs));
        record.postsInFlightAtCut = unanswered();
        await cut();
        clearInterval(feeder);
        await camera.idle();
        record.acknowledgedInWindow = camera.delivered.length - before;
      }
      cuts.push({ ...record, cutAfterS: seconds(cutAfterMs) });
      say(
        `cut ${n}/${CUTS} (${record.where}) ${seconds(cutAfterMs)} s in; boot ${record.bootS ?? '-'} s; ${record.acknowledgedInWindow} reads acknowledged; ${record.postsInFlightAtCut ?? '-'} unanswered at the cut; load ${load()}`,
      );
      // While the box is dark: what the hub holds now (it stops for the read), then the next boot.
      const hubRead = hub.inspect(collectorRows).then(async (rows) => {
        for (const row of rows) hubIds.add(row.detection_id);
        await hub.start();
      });
      current = await boot();
      vm = current.vm;
      await hubRead;
      // Progress on file after every cut: a run stopped early still leaves its timings.
      await writeFile(
        progressFile,
        `${JSON.stringify({ at: new Date().toISOString(), seed: SEED, accelerator, done: false, figures, perCut: cuts }, null, 2)}\n`,
      );
    }

    // The last boot runs clean: the buffer drains to the hub.
    const last = await answered('final boot');
    figures['final boot to claimed status (s)'] = seconds(Date.now() - current.startedAt);
    say(`final boot: ${last.pending} detections buffered`);
    const drained = await until(async () => pending(await appliance.status()) === 0, 600_000, 3000);
    t.ok(drained, 'the buffer drains to the hub after the last cut');
    await cut();
    const holdings = await hub.inspect(async (db) => ({ rows: await collectorRows(db), chain: await readHoldings(db, 'SELECT id FROM detections') }));
    const acked = camera.delivered.map((r) => r.detectionId);
    const verdict = judge(acked, hubIds, holdings.rows);
    t.ok(acked.length > 0, `the camera's pushes were acknowledged (${acked.length})`);
    t.same(verdict.lostFromCamera, [], `every read the appliance acknowledged is at the hub (${acked.length})`);
    t.same(verdict.lostFromHub, [], `every read the hub held after a cut is still there (${hubIds.size})`);
    t.same(verdict.doubledIds, [], 'no detection id stored twice');
    t.same(verdict.doubledReads, [], 'no read stored twice under another id');
    t.same(chainProblems(holdings.chain), [], 'every hash chain verifies');
    const serviceCuts = cuts.filter((c) => c.where === 'service');
    const idleCuts = serviceCuts.filter((c) => (c.postsInFlightAtCut ?? 0) === 0).map((c) => c.cut);
    t.same(idleCuts, [], `every service cut lands with a post in flight (${serviceCuts.length} service cuts)`);

    const bootTimes = cuts.flatMap((c) => (c.bootS === undefined ? [] : [c.bootS]));
    figures['boots that answered (after a cut)'] = bootTimes.length;
    figures['boot after a cut to claimed status, mean (s)'] = seconds((bootTimes.reduce((a, b) => a + b, 0) / Math.max(1, bootTimes.length)) * 1000);
    figures['boot after a cut to claimed status, max (s)'] = Math.max(0, ...bootTimes);
    figures['total (s)'] = seconds(Date.now() - began);
    const result = {
      at: new Date().toISOString(),
      image,
      seed: SEED,
      accelerator,
      cache: CACHE,
      cuts: cuts.length,
      acknowledgedByAppliance: acked.length,
      notAcknowledged: camera.undelivered.length,
      heldByHubAfterSomeCut: hubIds.size,
      atHubAtTheEnd: holdings.rows.length,
      lost: verdict.lostFromCamera.length + verdict.lostFromHub.length,
      doubled: verdict.doubledIds.length + verdict.doubledReads.length,
      figures,
      perCut: cuts,
    };
    say(`result: ${JSON.stringify({ ...result, perCut: undefined })}`);
    await writeFile(progressFile, `${JSON.stringify({ ...result, done: true }, null, 2)}\n`);
  });
}
