/**
 * The hub installed as a service, proven in qemu (issue 36 item 1), `npm run test:hub-server`
 * after `image/hub-server/build.sh` and `npm run image`. Two guests, each reaching the other
 * only through the host's loopback (user networking with restrict=on):
 *   hub server VM (image/hub-server): its guest port 8443 forwarded to a host loopback port;
 *   device VM (image/out): its 10.0.2.100:8443 handed by qemu's guestfwd to that host port.
 * Checked on the hub server: first boot made the database and started the service as its own
 * user, hardened; with HUB_HOST=0.0.0.0 and no certificate it generated one and serves TLS 1.3
 * only (a TLS 1.2 client is refused); a SIGKILL of the hub is answered by systemd restarting
 * it. Then the device claims against it over TLS: without a fingerprint it is told the
 * certificate is not publicly trusted, with the fingerprint the hub shows it claims and pins.
 * One boot of each VM, booted side by side, carries every check.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import t from 'tap';
import { Agent, request } from 'undici';
import { freePort, traced } from '../../test/e2e/hub-under-test.ts';
import { applianceAt, until } from './appliance-over-forward.ts';
import { GuestShell } from './guest-shell.ts';
import { addSlowHostTimeouts } from './slow-host-timeouts.ts';
import { startVm, type Vm } from './qemu-vm.ts';

const root = join(import.meta.dirname, '..', '..');
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(root, pkg), 'utf8')) as { version: string }).version;
const hubImage = process.env['ALPR_HUB_IMAGE'] ?? join(root, 'image/hub-server/out', `alpr-hub-server-${versionOf('hub/package.json')}-amd64.img.zst`);
const deviceImage = process.env['ALPR_IMAGE'] ?? join(root, 'image/out', `alpr-appliance-${versionOf('appliance/package.json')}-amd64.img.zst`);
// The hub as the device sees it: an address qemu's guestfwd hands to the host's loopback
// forward into the hub server VM. Not loopback, so the appliance insists on TLS 1.3.
const HUB_PORT = 8443;
const DEVICE_HUB_URL = `https://10.0.2.100:${HUB_PORT}`;
const figures: Record<string, number> = {};
const say = (line: string): void => void process.stderr.write(`hub server test: ${line}\n`);
const since = (began: number): number => Number(((Date.now() - began) / 1000).toFixed(1));

/** What a TLS client with these options gets from the hub: the protocol and certificate, or the error. */
function handshake(port: number, options: ConnectionOptions): Promise<{ protocol: string; sha256: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      resolve({ protocol: socket.getProtocol() ?? '', sha256: socket.getPeerCertificate().fingerprint256 });
      socket.end();
    });
    socket.setTimeout(20_000, () => socket.destroy(new Error('timeout')));
    socket.once('error', (error: Error) => resolve({ error: error.message }));
  });
}

// The test's own requests to the hub: its certificate is self-signed (compared by fingerprint below).
const selfSigned = new Agent({ connect: { rejectUnauthorized: false } });

/** Status of the hub's sign-in page over TLS; 0 when nothing answers. */
async function hubAnswers(port: number): Promise<number> {
  try {
    const r = await request(`https://127.0.0.1:${port}/login`, { headersTimeout: 20_000, bodyTimeout: 20_000, dispatcher: selfSigned });
    await r.body.dump();
    return r.statusCode;
  } catch {
    return 0;
  }
}

const missing = [hubImage, deviceImage].filter((f) => !existsSync(f));
if (missing.length > 0) {
  t.fail(`missing ${missing.join(', ')}: run image/hub-server/build.sh and npm run image first`);
} else {
  t.test('hub server image: a hardened service, TLS 1.3 by default, restarted after a kill, claimed by a device over TLS', async (t) => {
    const began = Date.now();
    const work = await mkdtemp(join(tmpdir(), 'alpr-hub-server-test-'));
    t.teardown(() => selfSigned.close());
    t.teardown(traced('rm work folder', () => rm(work, { recursive: true, force: true })));
    const hubDir = join(work, 'hub');
    const deviceDir = join(work, 'device');
    await mkdir(hubDir);
    await mkdir(deviceDir);
    const hubDisk = join(hubDir, 'disk.img');
    const deviceDisk = join(deviceDir, 'disk.img');
    execFileSync('zstd', ['-q', '-d', '--sparse', hubImage, '-o', hubDisk]);
    execFileSync('zstd', ['-q', '-d', '--sparse', deviceImage, '-o', deviceDisk]);
    await truncate(deviceDisk, 3 * 1024 ** 3);
    // The test overlay: a root shell on the virtio console of each guest; and patience.
    for (const disk of [hubDisk, deviceDisk]) {
      execFileSync(join(import.meta.dirname, 'add-test-overlay.sh'), [disk]);
      addSlowHostTimeouts(disk);
    }

    const hubPort = await freePort();
    const deviceSetupPort = await freePort();
    let hubVm: Vm | undefined;
    let deviceVm: Vm | undefined;
    let hubShell: GuestShell | undefined;
    let deviceShell: GuestShell | undefined;
    t.teardown(() => {
      hubShell?.close();
      deviceShell?.close();
      hubVm?.kill();
      deviceVm?.kill();
    });
    const dumpOnFailure = async (): Promise<void> => {
      if (hubVm) say(`hub server serial console (last 2000 characters):\n${(await hubVm.serialLog()).slice(-2000)}`);
      const journal = await hubShell
        ?.run('journalctl -b --no-pager -n 60 -u alpr-hub -u alpr-hub-database -u postgresql@17-main', 20_000)
        .catch(() => undefined);
      if (journal) say(`hub server journal:\n${journal.out}`);
      const device = await deviceShell?.run('journalctl -b --no-pager -n 40 -u alpr-appliance', 20_000).catch(() => undefined);
      if (device) say(`device journal:\n${device.out}`);
    };

    // Both guests boot side by side, one vCPU each.
    const bootAt = Date.now();
    hubVm = await startVm({
      disk: hubDisk,
      workDir: hubDir,
      setupPort: await freePort(),
      hostForwards: [{ hostPort: hubPort, guestPort: HUB_PORT }],
      guestForwards: [],
      serial: `QEMU-HUB-${randomBytes(3).toString('hex').toUpperCase()}`,
    });
    deviceVm = await startVm({
      disk: deviceDisk,
      workDir: deviceDir,
      setupPort: deviceSetupPort,
      guestForwards: [{ guest: '10.0.2.100', guestPort: HUB_PORT, hostPort: hubPort }],
      serial: `QEMU-${randomBytes(4).toString('hex').toUpperCase()}`,
    });

    // 1. The hub server's first boot: database created, the service up, TLS answering.
    const hubUp = await until(async () => (await hubAnswers(hubPort)) === 200, 900_000, 3000);
    figures['hub server boot to first TLS answer (s)'] = since(bootAt);
    say(`hub server answered over TLS ${since(bootAt)} s after qemu started (${hubVm.accel}, load ${loadavg()[0]?.toFixed(1)})`);
    if (!hubUp) {
      await dumpOnFailure();
      t.fail('the hub server never answered over TLS');
      return;
    }
    hubShell = await GuestShell.connect(hubVm.shellSocket, 30_000);
    await hubShell.ready(180_000);
    const hub = hubShell;
    t.equal(
      await hub.check('systemctl is-active alpr-hub postgresql alpr-hub-database | sort -u'),
      'active',
      'PostgreSQL, the first-boot database unit and the hub are active',
    );
    t.equal(await hub.check('systemctl is-enabled alpr-hub'), 'enabled', 'the hub starts at boot');
    t.match(await hub.check("stat -c '%U:%G %a' /etc/alpr/hub.env"), 'root:alpr-hub 640', 'the settings file is readable by the service, not by others');
    t.match(
      await hub.check('grep -c ^DATABASE_URL=postgres://alpr_hub: /etc/alpr/hub.env'),
      '1',
      'first boot wrote the database URL into the one settings file',
    );
    const mainPid = async (): Promise<number> => Number(await hub.check('systemctl show -p MainPID --value alpr-hub'));
    const pid = await mainPid();
    t.equal(await hub.check(`stat -c %U /proc/${pid}`), 'alpr-hub', 'the hub runs as its own user');
    t.equal(await hub.check(`grep ^CapEff /proc/${pid}/status | cut -f2`), '0000000000000000', 'with no capabilities');
    t.match(
      await hub.check('systemctl show -p ProtectSystem -p ReadWritePaths -p NoNewPrivileges -p Restart -p User alpr-hub | sort | tr "\\n" " "'),
      /NoNewPrivileges=yes ProtectSystem=strict ReadWritePaths=\/var\/lib\/alpr-hub Restart=always User=alpr-hub/,
      'hardened: the whole system read-only but its data and image folder, restarted always',
    );
    // The service's own mount namespace, entered as root (who could write anywhere on a
    // writable mount): only the data and image folders are writable there.
    const writes = await hub.check(
      `nsenter -t ${pid} -m sh -c 'for d in /var/lib/alpr-hub /var/lib/alpr-hub/images /opt/alpr-hub /etc/alpr /var/lib/postgresql /usr/local/bin; do if touch $d/.w 2>/dev/null; then rm -f $d/.w; echo "$d yes"; else echo "$d no"; fi; done'`,
    );
    t.equal(
      writes,
      '/var/lib/alpr-hub yes\n/var/lib/alpr-hub/images yes\n/opt/alpr-hub no\n/etc/alpr no\n/var/lib/postgresql no\n/usr/local/bin no',
      'in its namespace the hub can write its data and image folders and nothing else',
    );

    // 2. TLS by default: HUB_HOST=0.0.0.0, no certificate given.
    t.match(
      await hub.check('grep -E "^HUB_(HOST|TLS_CERT_FILE)=" /etc/alpr/hub.env'),
      /^HUB_HOST=0\.0\.0\.0$/,
      'the installed settings listen on every address and name no certificate',
    );
    const shown = await hub.check('alpr-hub hub-certificate show', 240_000);
    const tls13 = await handshake(hubPort, {});
    t.ok('protocol' in tls13 && tls13.protocol === 'TLSv1.3', `the hub negotiates TLS 1.3 (${JSON.stringify(tls13)})`);
    const fingerprint = 'sha256' in tls13 ? tls13.sha256 : '';
    t.ok(fingerprint !== '' && shown.toUpperCase().includes(fingerprint), `the certificate served is the one the hub generated and shows (${fingerprint})`);
    t.equal(
      await hub.check('ls /var/lib/alpr-hub | grep -c -e tls-cert -e tls-key'),
      '2',
      'it generated its certificate and key into its data folder on first start',
    );
    const tls12 = await handshake(hubPort, { maxVersion: 'TLSv1.2' });
    t.ok('error' in tls12, `a TLS 1.2 client is refused (${JSON.stringify(tls12)})`);

    // 3. SIGKILL: systemd restarts the hub. The public URL the device will use goes into the
    //    settings first, so the restarted hub hands it out at claim.
    await hub.check(`echo HUB_PUBLIC_URL=${DEVICE_HUB_URL} >> /etc/alpr/hub.env`);
    const killAt = Date.now();
    await hub.check(`kill -KILL ${pid}`);
    const back = await until(
      async () => {
        const now = await mainPid();
        return now !== 0 && now !== pid && (await hubAnswers(hubPort)) === 200;
      },
      240_000,
      2000,
    );
    figures['hub restart after SIGKILL to first answer (s)'] = since(killAt);
    t.ok(back, 'killed with SIGKILL, the hub is restarted by systemd and answers again');
    t.ok(Number(await hub.check('systemctl show -p NRestarts --value alpr-hub')) >= 1, 'systemd counted the restart');
    const again = await handshake(hubPort, {});
    t.equal('sha256' in again ? again.sha256 : '', fingerprint, 'the restarted hub serves the certificate it kept');

    // 4. The device claims over TLS with the fingerprint pinned.
    const claimCode = /ALPR-[A-Z0-9]{4}-[A-Z0-9]{4}/.exec(await hub.check('alpr-hub collector create --site-name "Hub server test"', 240_000))?.[0];
    t.ok(claimCode, `the hub's admin command made a claim code (${claimCode})`);
    const appliance = applianceAt(deviceSetupPort);
    const deviceUp = await until(async () => (await appliance.page()).status === 200, 900_000, 3000);
    figures['device boot to setup page (s)'] = since(bootAt);
    if (!deviceUp) {
      await dumpOnFailure();
      t.fail('the device setup page never answered');
      return;
    }
    deviceShell = await GuestShell.connect(deviceVm.shellSocket, 30_000);
    const claim = async (sha256?: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const r = await request(`${appliance.base}/setup/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ hub_url: DEVICE_HUB_URL, claim_code: claimCode, ...(sha256 ? { hub_certificate_sha256: sha256 } : {}) }),
        // Vault key derivation (100,000 PBKDF2 rounds) under software emulation takes a while.
        headersTimeout: 180_000,
        bodyTimeout: 180_000,
      });
      return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
    };
    const unconfirmed = await claim();
    t.equal(unconfirmed.status, 400, 'without a fingerprint the device refuses a hub whose certificate is not publicly trusted');
    t.match(JSON.stringify(unconfirmed.body), fingerprint, 'and shows the fingerprint it saw through the forwards: the one the hub serves');
    const wrong = await claim(fingerprint.replace(/^../, fingerprint.startsWith('00') ? '11' : '00'));
    t.match(JSON.stringify(wrong.body), /hub_certificate_mismatch/, 'a fingerprint that is not the hub certificate is refused');
    const claimAt = Date.now();
    const claimed = await claim(fingerprint);
    figures['claim with pinned fingerprint (s)'] = since(claimAt);
    t.equal(claimed.status, 200, `claim over TLS answered ${claimed.status} ${JSON.stringify(claimed.body)}`);
    t.equal(claimed.body['hub_url'], DEVICE_HUB_URL, 'the device took the hub URL the hub hands out');
    t.equal(String(claimed.body['hub_certificate_sha256'] ?? '').toUpperCase(), fingerprint, 'and pinned the hub certificate');
    const heartbeat = await until(async () => /\bactive\b/.test(await hub.check('alpr-hub collector list', 240_000)), 240_000, 5000);
    t.ok(heartbeat, `the hub lists the device's collector as claimed:\n${await hub.run('alpr-hub collector list', 240_000).then((r) => r.out)}`);

    if (!t.passing()) await dumpOnFailure();
    figures['whole test (s)'] = since(began);
    say(`figures: ${JSON.stringify(figures)} (${hubVm.accel}, load ${loadavg()[0]?.toFixed(1)})`);
  });
}
