/**
 * Boot test of the device image (issue 14), `npm run test:image` after `npm run image`.
 * Boots image/out/alpr-appliance-<version>-amd64.img.zst in qemu (OVMF; KVM or TCG, qemu-accel.ts)
 * and checks what an installer and an operator rely on:
 *   first boot: data partition grown, identity recorded, alpr-XXXX host name, the console
 *   banner, the setup page on :8080 (time to the first 200 printed);
 *   the claim against a real hub on the host's loopback (PGlite);
 *   4 simulated cameras: resident memory of the appliance measured in the guest (< 150 MB);
 *   kill -9 of the service: systemd brings it back, with a fifth camera added meanwhile: an
 *   ordinary IP camera whose plates the appliance reads itself (its read must reach the hub);
 *   hub unreachable: detections buffered; a reboot keeps the claim and the buffer;
 *   update (a new root and ESP written over the disk while the guest is off, image/update-root.sh):
 *   the claim and the buffered detections survive, and reach the hub once it is back.
 * Not in `npm test` (minutes of emulation): the tap include globs do not cover image/.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createPendingCollector } from '../../scripts/demo/enroll.ts';
import { freePort, hubUnderTest, traced } from '../../test/e2e/hub-under-test.ts';
import { applianceAt, pending, until } from './appliance-over-forward.ts';
import { startGuestCameras } from './guest-cameras.ts';
import { ORDINARY_CAMERA_ID, passCar, readablePlate, startGuestOrdinaryCamera } from './guest-ordinary-camera.ts';
import { GuestShell } from './guest-shell.ts';
import { addSlowHostTimeouts } from './slow-host-timeouts.ts';
import { startVm, type Vm } from './qemu-vm.ts';

const root = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'appliance/package.json'), 'utf8')) as { version: string }).version;
const image = process.env['ALPR_IMAGE'] ?? join(root, 'image/out', `alpr-appliance-${version}-amd64.img.zst`);
// The update's source: ALPR_IMAGE_UPDATE names a newer build; by default the test makes one
// (image/build.sh again, stamped <version>+update-test: its own mmdebstrap run and root).
const givenUpdateImage = process.env['ALPR_IMAGE_UPDATE'];
// What the appliance in the guest calls the hub: loopback, relayed by the test overlay (see
// test/overlay/alpr-test-hub.socket) to 10.0.2.100:80, which qemu hands to the host's hub.
const GUEST_HUB_URL = 'http://127.0.0.1:8090';
const MEMORY_BUDGET_MB = 150;
const figures: Record<string, number | string> = {};
const say = (line: string): void => void process.stderr.write(`image test: ${line}\n`);

if (!existsSync(image)) {
  t.fail(`no image at ${image}: run npm run image first`);
} else {
  t.test('device image boots, claims, survives a kill, a reboot and an update', async (t) => {
    const work = await mkdtemp(join(tmpdir(), 'alpr-image-test-'));
    t.teardown(traced('rm work folder', () => rm(work, { recursive: true, force: true })));
    const disk = join(work, 'disk.img');
    execFileSync('zstd', ['-q', '-d', '--sparse', image, '-o', disk]);
    // A 3 GiB "card": the first boot grows the data partition to its end.
    await truncate(disk, 3 * 1024 ** 3);
    // The test overlay (a root shell on the virtio console) and systemd's patience on a slow
    // host, both in the root partition: written again after an update replaces it.
    const addOverlay = (): void => {
      execFileSync(join(import.meta.dirname, 'add-test-overlay.sh'), [disk]);
      addSlowHostTimeouts(disk);
    };
    addOverlay();

    let updateImage = givenUpdateImage;
    let updateVersion: string | undefined;
    if (!updateImage) {
      updateVersion = `${version}+update-test`;
      const began = Date.now();
      execFileSync('bash', [join(root, 'image/build.sh')], {
        env: { ...process.env, ALPR_IMAGE_VERSION: updateVersion, ALPR_IMAGE_WORK: join(work, 'build'), ALPR_IMAGE_OUT: join(work, 'out') },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      updateImage = join(work, 'out', `alpr-appliance-${updateVersion}-amd64.img.zst`);
      await rm(join(work, 'build'), { recursive: true, force: true });
      figures['newer build for the update (s)'] = Number(((Date.now() - began) / 1000).toFixed(1));
      say(`built the newer image for the update (${updateVersion}) in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    }

    let claimCode = '';
    const hub = await hubUnderTest(t, {
      env: { HUB_PUBLIC_URL: GUEST_HUB_URL },
      beforeStart: async (env) => void (claimCode = await createPendingCollector(env, 'Image test site')),
    });
    const hubPort = Number(new URL(hub.url).port);
    const setupPort = await freePort();
    const cameras = await startGuestCameras(setupPort);
    t.teardown(traced('close cameras', () => cameras.close()));
    const ordinary = await startGuestOrdinaryCamera();
    t.teardown(traced('close ordinary camera', () => ordinary.close()));
    // Which drawn car the guest will be shown: checked with this checkout's reader on the host
    // while the guest boots (a few seconds).
    const readable = readablePlate().catch((error: unknown) => {
      say(`the reader on the host failed: ${String(error)}`);
      return undefined;
    });
    const appliance = applianceAt(setupPort);
    const serial = `QEMU-${randomBytes(4).toString('hex').toUpperCase()}`;

    let vm: Vm | undefined;
    let shell: GuestShell | undefined;
    t.teardown(() => {
      shell?.close();
      vm?.kill();
    });
    const dumpOnFailure = async (): Promise<void> => {
      if (!vm) return;
      say(`serial console (last 3000 characters):\n${(await vm.serialLog()).slice(-3000)}`);
      const journal = await shell?.run('journalctl -b --no-pager -n 60 -u alpr-appliance -u alpr-device', 20_000).catch(() => undefined);
      if (journal) say(`guest journal:\n${journal.out}`);
    };

    const waitForSetupPage = async (what: string, began: number, since = 'qemu started'): Promise<void> => {
      // 10 minutes, as the power-cut test waits and as the test disk's systemd timeouts allow
      // (slow-host-timeouts.ts): on a host at load 7 a reboot took 301 s, and the boot after
      // the update passed 420 s with the guest at its login prompt and the service still starting.
      const ok = await until(async () => (await appliance.page()).status === 200, 600_000, 2000);
      if (!ok) {
        await dumpOnFailure();
        throw new Error(`${what}: the setup page never answered 200`);
      }
      const seconds = (Date.now() - began) / 1000;
      figures[`${what}: first 200 (s)`] = Number(seconds.toFixed(1));
      say(`${what}: first 200 from the setup page ${seconds.toFixed(1)} s after ${since}`);
    };
    const boot = async (what: string): Promise<void> => {
      const began = Date.now();
      vm = await startVm({
        disk,
        workDir: work,
        setupPort,
        serial,
        guestForwards: [{ guest: '10.0.2.100', guestPort: 80, hostPort: hubPort }, ...cameras.forwards, ordinary.forward],
      });
      figures['accelerator'] = vm.accel;
      await waitForSetupPage(what, began);
      shell = await GuestShell.connect(vm.shellSocket, 30_000);
      await shell.ready(180_000);
    };
    const powerOff = async (): Promise<void> => {
      const running = vm;
      if (!running) return;
      await shell?.run('systemctl poweroff', 5000).catch(() => undefined);
      // The timer is cleared once qemu exits: left pending, it kept the test process alive for 3 minutes.
      let timer: NodeJS.Timeout | undefined;
      const off = await Promise.race([running.exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 180_000)))]);
      clearTimeout(timer);
      if (!off) running.kill();
      shell?.close();
      shell = undefined;
      vm = undefined;
    };
    const guest = (): GuestShell => {
      if (!shell) throw new Error('no guest shell');
      return shell;
    };
    const mainPid = async (): Promise<number> => Number(await guest().check('systemctl show -p MainPID --value alpr-appliance'));

    // 1. First boot.
    await boot('first boot');
    const page = await appliance.page();
    t.match(page.body, /not claimed/, 'the setup page offers the claim');
    const hostname = await guest().check('cat /proc/sys/kernel/hostname');
    t.match(hostname, /^alpr-[0-9a-f]{4}$/, `mDNS host name ${hostname}`);
    t.equal(
      await guest()
        .check('resolvectl mdns 2>/dev/null | grep -c yes || true')
        .then((n) => Number(n) > 0),
      true,
      'mDNS is on for the network link',
    );
    t.equal(await guest().check('cat /data/device/hardware-id'), `serial:${serial}`, 'first boot recorded the hardware identity (DMI serial)');
    t.match(await guest().check('cat /data/device/installed-at'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'and the install time');
    const dataBytes = Number(await guest().check('lsblk -bno SIZE "$(findmnt -no SOURCE /data)"'));
    figures['data partition after first boot (MiB)'] = Math.round(dataBytes / 2 ** 20);
    t.ok(dataBytes > 1024 ** 3, `the data partition grew to the disk's end (${Math.round(dataBytes / 2 ** 20)} MiB)`);
    const banner = await until(async () => (await vm!.serialLog()).includes(`http://${hostname}.local:8080/`), 60_000);
    t.ok(banner, 'the console shows the setup URL and the claim instructions');
    t.equal(
      await guest().check('systemctl is-active systemd-networkd systemd-resolved systemd-timesyncd | sort -u'),
      'active',
      'DHCP, mDNS and time sync services run',
    );
    t.match(
      await guest().check('systemctl show -p ProtectSystem -p ReadWritePaths -p NoNewPrivileges -p Restart alpr-appliance | sort | tr "\\n" " "'),
      /NoNewPrivileges=yes ProtectSystem=strict ReadWritePaths=\/data\/alpr Restart=always/,
      'the service is hardened, writes /data/alpr only, restarts always',
    );
    const pid = await mainPid();
    t.equal(await guest().check(`stat -c %U /proc/${pid}`), 'alpr', 'the appliance runs as the alpr user');
    t.equal(await guest().check(`grep ^CapEff /proc/${pid}/status | cut -f2`), '0000000000000000', 'with no capabilities');

    // 2. Claim through the setup page against the hub on the host.
    const claim = await appliance.claim(GUEST_HUB_URL, claimCode);
    t.equal(claim.status, 200, `claim answered ${claim.status} ${JSON.stringify(claim.body)}`);
    t.equal((await appliance.status()).claimed, true, 'the appliance reports itself claimed');

    // 3. Four cameras and the memory budget.
    const toml = Buffer.from(cameras.toml).toString('base64');
    await guest().check(
      `echo ${toml} | base64 -d > /data/alpr/appliance.toml && chown alpr:alpr /data/alpr/appliance.toml && chmod 600 /data/alpr/appliance.toml && systemctl restart alpr-appliance`,
    );
    const online = await until(async () => (await appliance.status()).cameras.filter((c) => c.state === 'ONLINE').length >= 4, 240_000, 3000);
    const states = await appliance
      .status()
      .then((s) => s.cameras.map((c) => `${c.id}=${c.state}`).join(' '))
      .catch(() => 'unknown');
    t.ok(online, `4 cameras online in the guest (${states})`);
    const samples: number[] = [];
    for (let i = 0; i < 7; i++) {
      await new Promise((r) => setTimeout(r, 10_000));
      const kb = Number(await guest().check(`awk '/^VmRSS/ {print $2}' /proc/$(systemctl show -p MainPID --value alpr-appliance)/status`));
      samples.push(kb / 1024);
    }
    const maxRss = Math.max(...samples);
    figures['appliance RSS with 4 cameras, max of 7 samples (MB)'] = Number(maxRss.toFixed(1));
    say(`appliance RSS with 4 cameras: ${samples.map((s) => s.toFixed(1)).join(', ')} MB (max ${maxRss.toFixed(1)})`);
    t.ok(maxRss < MEMORY_BUDGET_MB, `appliance RSS ${maxRss.toFixed(1)} MB under ${MEMORY_BUDGET_MB} MB`);
    const delivered = cameras.pullA.delivered.length + cameras.pullB.delivered.length + cameras.nvr.delivered.length + cameras.push.delivered.length;
    t.ok(delivered > 0, `the cameras handed ${delivered} reads to the appliance`);

    // 4. kill -9: Restart=always brings it back, and the restarted service reads an
    // appliance.toml with a fifth camera: the ordinary one, whose plates the appliance reads
    // itself. Added only now, after the memory samples: the budget of docs/adr/0002 is for the
    // four plate-reading cameras, and the reader's worker with ONNX Runtime and its models adds
    // about a hundred MB more. Written before the kill so the restart systemd does anyway loads
    // it: a restart of its own would cost another node start in the emulated guest. The car is
    // in view from the camera's first frame (guest-ordinary-camera.ts says why).
    const car = await readable;
    t.ok(car, `the reader on the host reads a drawn car as a still (${car?.plate ?? 'none'})`);
    if (car) {
      ordinary.camera.show(car.index);
      const withOrdinary = Buffer.from(`${cameras.toml}${ordinary.toml}`).toString('base64');
      await guest().check(`echo ${withOrdinary} | base64 -d > /data/alpr/appliance.toml`);
    }
    const killedPid = await mainPid();
    const killedAt = Date.now();
    await guest().check(`kill -9 ${killedPid}`);
    const back = await until(
      async () => {
        const now = await mainPid();
        return now !== 0 && now !== killedPid && (await appliance.page()).status === 200;
      },
      180_000,
      2000,
    );
    t.ok(back, 'killed, the service is restarted by systemd and answers again');
    figures['restart after kill -9 to 200 (s)'] = Number(((Date.now() - killedAt) / 1000).toFixed(1));
    t.ok(Number(await guest().check('systemctl show -p NRestarts --value alpr-appliance')) >= 1, 'systemd counted the restart');

    // 4b. The ordinary camera: a drawn car in view; the appliance reads its plate with its own
    // reader and ends the passage (step 8 finds the read at the hub).
    let passed = false;
    if (car) {
      const outcome = await passCar(() => appliance.status());
      for (const [what, s] of Object.entries(outcome.seconds)) figures[`ordinary camera: ${what} (s)`] = s;
      say(`ordinary camera: ${JSON.stringify(outcome)}`);
      passed = outcome.failed === undefined;
      if (!passed) {
        const camera = (await appliance.status().catch(() => undefined))?.cameras.find((c) => c.id === ORDINARY_CAMERA_ID);
        say(`ordinary camera in the guest: ${JSON.stringify(camera)}`);
      }
      t.ok(passed, `the appliance read the car in view of the ordinary camera and ended its passage${outcome.failed ? `: ${outcome.failed}` : ''}`);
      const kb = Number(await guest().check(`awk '/^VmRSS/ {print $2}' /proc/$(systemctl show -p MainPID --value alpr-appliance)/status`));
      figures['appliance RSS with the reader loaded, 5 cameras (MB)'] = Number((kb / 1024).toFixed(1));
    }

    // 5. Hub unreachable: reads are buffered.
    await hub.stop();
    const deliveredBefore = cameras.push.delivered.length;
    const outageReads = () => cameras.push.delivered.slice(deliveredBefore).filter((r) => !r.unknown && !r.repeatOf);
    const buffered = await until(async () => outageReads().length > 0 && pending(await appliance.status()) > 0, 120_000, 2000);
    t.ok(buffered, 'with the hub down, the pushed reads are buffered');
    await cameras.close();
    await ordinary.close();
    // The read followed to the hub is one the camera did not repeat: a better repeat
    // replaces a read still waiting in the buffer (appliance/src/buffer/dedupe.ts), and the
    // hub then holds the repeat's id, not this one.
    const repeated = new Set(cameras.push.delivered.map((r) => r.repeatOf).filter((id) => id !== undefined));
    const outageRead = outageReads().find((r) => !repeated.has(r.detectionId));
    let held = -1;
    await until(
      async () => {
        const before = pending(await appliance.status());
        await new Promise((r) => setTimeout(r, 4000));
        held = pending(await appliance.status());
        return before === held;
      },
      60_000,
      0,
    );
    figures['buffered detections before reboot and update'] = held;
    say(`${held} detections buffered while the hub is down`);
    t.ok(held > 0 && outageRead !== undefined, `buffer holds ${held} detections`);

    // 6. Reboot keeps the claim and the buffer.
    const rebootAt = Date.now();
    await guest()
      .run('systemctl reboot', 5000)
      .catch(() => undefined);
    await until(async () => (await appliance.page()).status !== 200, 120_000, 1000);
    await waitForSetupPage('reboot', rebootAt, '`systemctl reboot`');
    await guest().ready(180_000);
    let status = await appliance.status();
    t.equal(status.claimed, true, 'claimed after a reboot');
    t.equal(pending(status), held, 'the buffer is intact after a reboot');
    t.equal(await guest().check('cat /proc/sys/kernel/hostname'), hostname, 'same host name after a reboot');

    // 7. Update: new ESP and root written while the guest is off; the data partition kept.
    await guest().check('echo written-before-the-update > /etc/alpr-test-marker');
    await powerOff();
    const updateAt = Date.now();
    const updateOutput = execFileSync(join(root, 'image/update-root.sh'), [updateImage, disk], { encoding: 'utf8' });
    figures['update-root.sh (s)'] = Number(((Date.now() - updateAt) / 1000).toFixed(1));
    for (const line of updateOutput.trim().split('\n')) say(line);
    addOverlay();
    await boot('after update');
    t.equal((await guest().run('test -e /etc/alpr-test-marker')).code, 1, 'the root was replaced (a file written before the update is gone)');
    if (updateVersion) t.equal(await guest().check('cat /opt/alpr/VERSION'), updateVersion, `the guest runs the newer build ${updateVersion}`);
    status = await appliance.status();
    t.equal(status.claimed, true, 'claimed after the update');
    t.same(status.warnings, [], 'the vault opens on the same hardware after the update');
    t.equal(pending(status), held, 'the buffered detections survived the update');
    t.equal(await guest().check('cat /proc/sys/kernel/hostname'), hostname, 'same host name after the update');

    // 8. The hub comes back: the buffered detections, the outage read among them, reach it.
    await hub.start();
    const drained = await until(async () => pending(await appliance.status()) === 0, 300_000, 3000);
    t.ok(drained, 'the buffer drains to the hub once it is back');
    await powerOff();
    const rows = await hub.inspect(async (db) => ({
      read: await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM detections WHERE detection_id = $1', [outageRead?.detectionId ?? '']),
      collectors: await db.sql<{ hardware_id: string | null }>('SELECT hardware_id FROM collectors'),
      ordinary: await db.sql<{ plate_number: string }>('SELECT plate_number FROM detections WHERE camera_id = $1', [ORDINARY_CAMERA_ID]),
    }));
    t.equal(rows.read[0]?.n, 1, 'the read buffered before the update is at the hub');
    t.ok(
      rows.collectors.some((c) => c.hardware_id === `serial:${serial}`),
      'the hub holds the collector claimed by the guest',
    );
    if (car && passed) {
      const plates = rows.ordinary.map((r) => r.plate_number);
      t.equal(
        plates.filter((p) => p === car.plate).length,
        1,
        `the plate ${car.plate} the guest read from the ordinary camera is at the hub, once (${plates.join(' ') || 'none'})`,
      );
    }

    if (t.passing())
      await writeFile(join(root, 'image/out/boot-test-result.json'), `${JSON.stringify({ at: new Date().toISOString(), image, figures }, null, 2)}\n`);
    else await dumpOnFailure();
    say(`figures: ${JSON.stringify(figures)}`);
    say('test body done; teardown follows');
  });
}
