import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { join } from 'node:path';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { alertXml, NAMESPACES } from '../../scripts/simulators/vendor-a-xml.ts';
import { closeBuffer, insertDetection, openBuffer } from '../../appliance/src/buffer/index.ts';
import { memoryLog, sampleDetection, sampleImages } from '../../appliance/src/buffer/buffer.test-helper.ts';
import { readEnvironment } from '../../appliance/src/config/load.ts';
import { claimOverHttp, startTestHub, type ClaimedAppliance, type TestHub } from './hub-for-appliance.ts';
import { createLog } from '../../appliance/src/log.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { createAppliance, type ApplianceDeps } from '../../appliance/src/runtime/appliance.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { wipeCollector } from '../../hub/src/collectors/wipe.ts';
import { STATUS_PATH, pushPath } from '../../appliance/src/http/local-paths.ts';

/**
 * The whole appliance (createAppliance: keystore, real SQLite buffer, pipeline with the
 * buffer ports, local server) against a real hub in this process (createHubApp over a fresh
 * database), over real HTTP on loopback. What the hub holds is read from its database.
 */
const hub = await startTestHub(t);
// The appliance stamps reads with the real clock; the hub refuses captures a day ahead of its own.
hub.ctx.clock.set(new Date());
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const PUSH_MAC = '00:11:22:33:44:55';
const SECRET = 'push-secret-0123456789';

async function startAppliance(t: Test, claimed: ClaimedAppliance | undefined, toml: string, deps: Partial<ApplianceDeps> = {}) {
  const dataDir = claimed?.dataDir ?? (await mkdtemp(join(tmpdir(), 'alpr-appliance-')));
  if (!claimed) t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  await writeFile(join(dataDir, 'appliance.toml'), `[setup]\nhost = "127.0.0.1"\nport = 0\n\n${toml}`);
  const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: dataDir }), {
    identity: fixedIdentity(claimed?.serial ?? 'serial:APPLIANCE-TEST'),
    log: createLog('silent'),
    diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
    ...deps,
  });
  t.teardown(() => appliance.stop());
  const listening = await appliance.start();
  return { appliance, base: listening.url, dataDir };
}

async function hubRows(h: TestHub, collectorId: string) {
  return h.ctx.db.sql<{ detection_id: string; crop_image_hash: string | null; full_image_hash: string | null }>(
    'SELECT detection_id, crop_image_hash, full_image_hash FROM detections WHERE collector_id = $1 ORDER BY detection_id',
    [collectorId],
  );
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** A vendor_a ANPR alert as the camera posts it, from a chosen local address. */
function pushAlert(
  base: string,
  plate: string,
  headers: Record<string, string> = {},
  localAddress = '127.0.0.1',
  query = '',
): Promise<{ status: number; body: string }> {
  const xml = alertXml(
    {
      seq: 0,
      plate,
      unknown: false,
      timeMs: Date.now() - 60_000,
      confidence: 90,
      direction: 'forward',
      vehicleType: 'car',
      color: 'white',
      brandCode: 0,
    } as never,
    { uuid: `uuid-${plate}`, mac: PUSH_MAC, channelId: 1, timezone: 'UTC', activePostCount: 1, namespace: NAMESPACES[0], pictures: [] },
  );
  const url = new URL(`${pushPath('vendor_a')}${query}`, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/xml', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(xml);
  });
}

t.test('a backlog in the real buffer drains to the real hub: each detection once, image hashes intact', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  // 120 detections buffered before start (an outage's backlog), written by the real buffer code.
  const buffer = openBuffer({ file: join(claimed.dataDir, 'buffer.sqlite'), clock: { now: () => new Date() }, log: memoryLog() });
  const expected = new Map<string, { crop: string; full: string }>();
  for (let i = 0; i < 120; i++) {
    const detection = sampleDetection({ cameraId: 'gate', plate: `AB${String(i).padStart(3, '0')}CD`, atMs: Date.now() - 60_000 + i });
    const images = sampleImages(2_000, 6_000);
    // The hub serves JPEG and PNG only and judges by the bytes: give the random bytes a JPEG start.
    for (const bytes of [images.plate_crop, images.full_scene]) bytes?.set([0xff, 0xd8, 0xff, 0xe0]);
    insertDetection(buffer, detection, images);
    expected.set(detection.detection_id, { crop: sha(images.plate_crop as Uint8Array), full: sha(images.full_scene as Uint8Array) });
  }
  closeBuffer(buffer);

  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const { appliance } = await startAppliance(t, claimed, '', { log: pino({ level: 'info' }, sink) });
  const began = Date.now();
  const drained = await until(async () => (await hubRows(hub, claimed.enrollment.collector_id)).length === 120, 120_000);
  t.comment(`drained in ${Date.now() - began} ms; uplink ${JSON.stringify(appliance.pipeline()?.uplink?.state())}`);
  if (!drained) t.comment(JSON.stringify(appliance.buffer()?.sqlite.prepare('SELECT * FROM rejected LIMIT 1').all()));
  t.ok(drained, 'the hub holds all 120');
  t.ok(await until(() => appliance.pipeline()?.uplink?.state().totals.stored === 120), 'the uplink counted them stored');
  const rows = await hubRows(hub, claimed.enrollment.collector_id);
  t.same(rows.map((r) => r.detection_id).sort(), [...expected.keys()].sort(), 'each detection exactly once');
  const mismatched = rows.filter((r) => r.crop_image_hash !== expected.get(r.detection_id)?.crop || r.full_image_hash !== expected.get(r.detection_id)?.full);
  t.same(mismatched, [], 'every image arrived byte for byte');
  const left = (): number => (appliance.buffer()?.sqlite.prepare('SELECT count(*) AS n FROM detections').get() as { n: number }).n;
  t.ok(await until(() => left() === 0), 'the buffer let go of every acknowledged row');
  t.ok((appliance.pipeline()?.uplink?.state().totals.batches ?? 0) >= 3, 'in batches of at most 50');
  t.same(
    lines.filter((l) => l.level >= 40),
    [],
    'a clean drain logs no warning or error (the first pass once failed: key read before the pipeline existed)',
  );
  t.equal(appliance.pipeline()?.uplink?.state().consecutiveFailures, 0);
});

t.test('a pull camera runner feeds the real buffer; a read the hub refuses goes to the dead letters with its reason', async (t) => {
  const camera = await startVendorACamera({
    username: 'admin',
    password: 'cam-Pa55',
    ratePerSecond: 0,
    oldCopyRate: 0,
    unknownRate: 0,
    seed: 7,
    cropBytes: 300,
    sceneBytes: 300,
  });
  t.teardown(() => camera.close());
  const claimed = await claimOverHttp(t, hub);
  // One read stamped three days ahead: the hub refuses it (more than 24 h ahead of its clock).
  const buffer = openBuffer({ file: join(claimed.dataDir, 'buffer.sqlite'), clock: { now: () => new Date() }, log: memoryLog() });
  const future = sampleDetection({ cameraId: 'other', plate: 'FU7URE1', atMs: Date.now() + 3 * 86_400_000 });
  insertDetection(buffer, future, {});
  closeBuffer(buffer);
  const toml = `[uplink]\nmax_batch_detections = 1\n\n[[cameras]]\nid = "gate"\nvendor = "vendor_a"\nmode = "pull"\nhost = "127.0.0.1"\nport = ${camera.port}\nusername = "admin"\npassword = "cam-Pa55"\ntimezone = "UTC"\nmac = "${camera.mac}"\npollIntervalMs = 100\n`;
  const { appliance } = await startAppliance(t, claimed, toml);
  t.ok(await until(() => appliance.pipeline()?.runners.statuses()[0]?.state === 'ONLINE'), 'the runner is online');
  camera.addReads(3);
  t.ok(await until(async () => (await hubRows(hub, claimed.enrollment.collector_id)).length === 3, 120_000), 'the three reads reach the hub');
  const cams = await hub.ctx.db.sql<{ camera_id: string }>('SELECT DISTINCT camera_id FROM detections WHERE collector_id = $1', [
    claimed.enrollment.collector_id,
  ]);
  t.same(
    cams.map((c) => c.camera_id),
    ['gate'],
    'under the configured camera id',
  );
  t.ok(await until(() => (appliance.pipeline()?.uplink?.state().totals.rejected ?? 0) === 1), 'the refused read is counted');
  const dead = appliance.buffer()?.sqlite.prepare('SELECT detection_id, reason FROM rejected').all() as { detection_id: string; reason: string }[];
  t.equal(dead.length, 1);
  t.equal(dead[0]?.detection_id, future.detection_id);
  t.match(dead[0]?.reason, /ahead of the hub's clock/, "the hub's reason is kept");
  // The hub commits before the appliance reads its answer: wait for the acknowledgement to land.
  const waiting = (): number => (appliance.buffer()?.sqlite.prepare('SELECT count(*) AS n FROM detections').get() as { n: number }).n;
  t.ok(await until(() => waiting() === 0), 'nothing left waiting');
});

t.test('a push through port 8080 is stored, uploaded and counted for the disk forecast; pinning and secret hold', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const toml = `[uplink]\nwindow_seconds = 30\nwindow_seconds_by_camera_type = { vendor_a = 5 }\nmax_batch_detections = 1\n\n[[cameras]]\nid = "gate"\nvendor = "vendor_a"\nmode = "push"\nhost = "127.0.0.1"\nmac = "${PUSH_MAC}"\ntimezone = "UTC"\npushSecret = "${SECRET}"\n`;
  const { base, appliance } = await startAppliance(t, claimed, toml);

  const noSecret = await pushAlert(base, 'NO1SEC');
  t.equal(noSecret.status, 401, 'no secret: 401');
  t.match(JSON.parse(noSecret.body), { error: { code: 'bad_push_secret' } });
  const wrong = await pushAlert(base, 'WR0NG1', { 'x-alpr-push-secret': 'not-the-secret-at-all' });
  t.equal(wrong.status, 401, 'wrong secret: 401');
  const elsewhere = await pushAlert(base, 'FR0M2', { 'x-alpr-push-secret': SECRET }, '127.0.0.2');
  t.equal(elsewhere.status, 403, 'the right secret from another address: 403');
  t.match(JSON.parse(elsewhere.body), { error: { code: 'wrong_source' } });
  const basic = `Basic ${Buffer.from(`admin:${SECRET}`).toString('base64')}`;
  const ok = await pushAlert(base, 'GOOD01', { authorization: basic });
  t.equal(ok.status, 200, 'pinned address and Basic password: accepted');
  const byQuery = await pushAlert(base, 'GOOD02', {}, '127.0.0.1', `?secret=${SECRET}`);
  t.equal(byQuery.status, 200, 'secret in the URL: accepted');

  t.ok(await until(async () => (await hubRows(hub, claimed.enrollment.collector_id)).length === 2), 'both reach the hub');
  const plates = await hub.ctx.db.sql<{ plate_number: string }>('SELECT plate_number FROM detections WHERE collector_id = $1 ORDER BY plate_number', [
    claimed.enrollment.collector_id,
  ]);
  t.same(
    plates.map((p) => p.plate_number),
    ['GOOD01', 'GOOD02'],
    'refused pushes never reached the buffer or the hub',
  );

  const status = (await (await fetch(`${base}${STATUS_PATH}`)).json()) as { enrollment: unknown; disk: { cap_source: string; cap_bytes: number } };
  t.match(status.enrollment, { state: 'claimed', collector_id: claimed.enrollment.collector_id });
  t.equal(status.disk.cap_source, 'partition', 'no configured cap: sized from the partition');
  t.equal(status.disk.cap_bytes, 60 * 1024 ** 3, '60 % of a 100 GiB partition');
  t.equal(appliance.enrollment().state, 'claimed');
});

t.test('unknown cameras: accepted by default, refused when accept_unknown_cameras = false', async (t) => {
  const open = await startAppliance(t, undefined, '');
  t.equal((await pushAlert(open.base, 'UNK001')).status, 200, 'default: an unconfigured camera is buffered');
  const closed = await startAppliance(t, undefined, '[ingest]\naccept_unknown_cameras = false\n');
  const refused = await pushAlert(closed.base, 'UNK002');
  t.equal(refused.status, 403);
  t.match(JSON.parse(refused.body), { error: { code: 'unknown_camera' } });
  const rows = closed.appliance.buffer()?.sqlite.prepare('SELECT count(*) AS n FROM detections').get() as { n: number };
  t.equal(rows.n, 0, 'nothing stored');
});

t.test('the LAN guard covers the push endpoints and the status JSON', async (t) => {
  // The loopback test machine has no public peer: this appliance sees 127.0.0.3 as a public address.
  const { base } = await startAppliance(t, undefined, '', {
    addressOf: (c) => {
      const real = socketPeer(c);
      return real === '127.0.0.3' ? '203.0.113.9' : real;
    },
  });
  const fromOutside = await pushAlert(base, 'OUT001', {}, '127.0.0.3');
  t.equal(fromOutside.status, 403, 'push from outside the LAN: 403');
  t.equal((await pushAlert(base, 'LAN001', {}, '127.0.0.1')).status, 200, 'from the LAN: accepted');
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(new URL(STATUS_PATH, base), { localAddress: '127.0.0.3' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(status, 403, 'status from outside the LAN: 403');
});

t.test('a keystore that does not open: visible degraded state, setup page open; an unreadable one: startup error', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  // Moved to other hardware: the vault key derives from the serial.
  const { base, appliance } = await startAppliance(t, { ...claimed, serial: 'serial:OTHER-DEVICE' }, '');
  t.equal(appliance.enrollment().state, 'unusable');
  const status = (await (await fetch(`${base}${STATUS_PATH}`)).json()) as { enrollment: { state: string; code: string }; warnings: string[]; claimed: boolean };
  t.match(status.enrollment, { state: 'unusable', code: 'device_mismatch' });
  t.match(status.warnings[0], /stored enrollment unusable \(device_mismatch\)/);
  t.equal(status.claimed, false, 'no key in use');
  t.equal(appliance.pipeline()?.uplink, undefined, 'nothing uploads');
  const page = await (await fetch(`${base}/`)).text();
  t.match(page, /action="\/setup\/claim"/, 'the setup page is open for a new claim');
  t.match(page, /stored enrollment unusable/, 'and says why');
  await appliance.stop();

  const broken = await mkdtemp(join(tmpdir(), 'alpr-appliance-'));
  t.teardown(() => rm(broken, { recursive: true, force: true }));
  await mkdir(join(broken, 'credentials.enc'));
  const failing = createAppliance(readEnvironment({ ALPR_DATA_DIR: broken }), { identity: fixedIdentity('serial:X'), log: createLog('silent') });
  await t.rejects(failing.start(), { name: 'ApplianceError', code: 'start_failed' }, 'an unreadable keystore is a startup error, not "unclaimed"');
  await failing.stop();
});

function socketPeer(c: Parameters<NonNullable<ApplianceDeps['addressOf']>>[0]): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}

t.test('on the device the log is a capped file under the data folder, and a remote wipe deletes it', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const logFile = join(claimed.dataDir, 'logs', 'appliance.log');
  const toml = '[setup]\nhost = "127.0.0.1"\nport = 0\n';
  const start = async (restart?: () => Promise<void>) => {
    await writeFile(join(claimed.dataDir, 'appliance.toml'), toml);
    const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: claimed.dataDir, ALPR_LOG_TO: 'file' }), {
      identity: fixedIdentity(claimed.serial),
      diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
      ...(restart ? { restart } : {}),
    });
    t.teardown(() => appliance.stop());
    await appliance.start();
    return appliance;
  };

  const first = await start();
  await first.stop();
  const written = await readFile(logFile, 'utf8');
  t.match(written, /"msg":"appliance listening"/, 'the appliance wrote its log to the file, not to standard output');
  t.notOk(written.includes(claimed.enrollment.api_key), 'no key in it');
  t.equal((await stat(logFile)).mode & 0o777, 0o600, 'readable by the service only');

  // The wipe waits in the hub; the next start's first heartbeat runs it.
  await wipeCollector(hub.ctx, SYSTEM_ACTOR, claimed.enrollment.collector_id);
  let restarted = false;
  await start(async () => {
    restarted = true;
  });
  t.ok(await until(() => restarted), 'wiped and restarted');
  t.equal(
    await stat(join(claimed.dataDir, 'logs')).then(
      () => 'present',
      () => 'gone',
    ),
    'gone',
    'the log folder is deleted',
  );
  t.same(await readdir(claimed.dataDir), ['appliance.toml'], 'only the installation settings stay');
});

t.test('a push camera 8 years ahead: stored with corrected times and accepted by the hub', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const mac = '00:11:22:33:44:88';
  const toml = `[uplink]\nwindow_seconds = 5\n\n[[cameras]]\nid = "ahead"\nvendor = "vendor_a"\nmode = "push"\nhost = "127.0.0.1"\nmac = "${mac}"\ntimezone = "UTC"\n`;
  const { base } = await startAppliance(t, claimed, toml);
  const camera = await startVendorACamera({
    mode: 'push',
    pushUrl: `${base}${pushPath('vendor_a')}`,
    mac,
    timezone: 'UTC',
    ratePerSecond: 10,
    count: 8,
    seed: 21,
    unknownRate: 0,
    repeatRate: 0,
    cropBytes: 300,
    sceneBytes: 300,
    pushFormat: 'xml',
    clockOffsetMs: 8 * 365.25 * 86_400_000,
  });
  t.teardown(() => camera.close());
  await camera.idle();
  t.equal(camera.delivered.length, 8, 'the appliance took every push');
  t.ok(await until(async () => (await hubRows(hub, claimed.enrollment.collector_id)).length === 8), 'all eight reach the hub (none refused as far-future)');
  const rows = await hub.ctx.db.sql<{ detection_id: string; captured_at: Date }>('SELECT detection_id, captured_at FROM detections WHERE collector_id = $1', [
    claimed.enrollment.collector_id,
  ]);
  const worst = Math.max(
    ...rows.map((r) => Math.abs(new Date(r.captured_at).getTime() - (camera.delivered.find((d) => d.detectionId === r.detection_id)?.trueTimeMs ?? NaN))),
  );
  t.ok(worst < 2_000, `capture times within 2 s of true (worst ${worst} ms)`);
  const kept = await hub.ctx.db.sql<{ captured_at: Date; attributes: { camera_time?: string } | null }>(
    'SELECT captured_at, attributes FROM detections WHERE collector_id = $1',
    [claimed.enrollment.collector_id],
  );
  t.ok(
    kept.every((r) => Math.abs(Date.parse(r.attributes?.camera_time ?? '') - new Date(r.captured_at).getTime() - 8 * 365.25 * 86_400_000) < 2_000),
    "the camera's own time travels with each read (attributes.camera_time)",
  );
  const status = (await (await fetch(`${base}${STATUS_PATH}`)).json()) as {
    cameras: Array<{ id: string; clock: { offsetMs: number; warnings: string[] } | null; counters: { timesCorrected: number } }>;
  };
  const ahead = status.cameras.find((c) => c.id === 'ahead');
  t.match(ahead?.clock?.warnings.join(' '), /8 years ahead/);
  t.equal(ahead?.counters.timesCorrected, 8);
});
