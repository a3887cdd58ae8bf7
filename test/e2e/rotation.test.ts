/**
 * Issue 10 section 2 end to end, with real processes: a hub (real Postgres when
 * DATABASE_URL is set), an appliance claimed through its setup page (so it holds a device
 * key and a sealed keystore), and a pull camera producing reads throughout. The admin
 * rotates the key from the hub CLI; the appliance switches without a restart, proves the
 * new key by heartbeat and acknowledges on it; the hub retires the old key at once; every
 * plate still arrives exactly once.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { openDatabase } from '../../hub/src/db/client.ts';
import type { Row } from '../../hub/src/db/raw.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { createPendingCollector } from '../../scripts/demo/enroll.ts';
import { startApplianceProcess, startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { startVendorACamera } from '../../scripts/simulators/vendor-a-camera.ts';
import { unseenReads, waitFor } from './appliance-under-test.ts';
import { compareWithHub, expectedSightings, readIds, type HubRow } from './expectations.ts';
import { freePort, traced } from './hub-under-test.ts';
import { STATUS_PATH, pushPath } from '../../appliance/src/http/local-paths.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

t.test('rotate: the appliance switches without restart, the old key is retired early, nothing lost or duplicated', { timeout: 300_000 }, async (t) => {
  const began = Date.now();
  const mark = (what: string): void => t.comment(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
  const hubPort = await freePort();
  const hubUrl = `http://127.0.0.1:${hubPort}`;
  const hubDir = await mkdtemp(join(tmpdir(), 'alpr-e2e-rotation-hub-'));
  t.teardown(traced('rm hub dir', () => rm(hubDir, { recursive: true, force: true })));
  const env: Record<string, string> = {
    HUB_DATA_DIR: hubDir,
    HUB_HOST: '127.0.0.1',
    HUB_PORT: String(hubPort),
    HUB_PUBLIC_URL: hubUrl,
    HUB_LOG_LEVEL: 'info',
    HUB_HEARTBEAT_SECONDS: '1',
  };
  let query: <T extends Row>(text: string, params?: unknown[]) => Promise<T[]>;
  const pglite = !process.env['DATABASE_URL'];
  if (!pglite) {
    const db = await testDatabase(t);
    env['DATABASE_URL'] = db.url ?? '';
    query = (text, params) => db.sql(text, params);
  } else {
    t.comment('DATABASE_URL not set: the hub runs on PGlite (stopped around CLI calls)');
    env['DATABASE_URL'] = '';
    query = async (text, params) => {
      const db = await openDatabase({ dataDir: join(hubDir, 'pglite'), log: createLog('silent') });
      try {
        return await db.sql(text, params);
      } finally {
        await db.close();
      }
    };
  }
  const claimCode = await createPendingCollector(env, 'Rotation site');
  let hub: RunningProcess | undefined = await startHubProcess({ env, timeoutMs: 120_000 });
  let hubLog = '';
  const stopHub = async (): Promise<void> => {
    if (!hub) return;
    hubLog += hub.output();
    await hub.stop();
    hub = undefined;
  };
  t.teardown(traced('stop hub', stopHub));
  mark('hub up');

  const camera = await startVendorACamera({ username: 'admin', password: 'pw-rotation', ratePerSecond: 3, count: 75, seed: 41 });
  t.teardown(traced('close camera', () => camera.close()));
  const appliancePort = await freePort();
  const applianceDir = await mkdtemp(join(tmpdir(), 'alpr-e2e-rotation-appliance-'));
  t.teardown(traced('rm appliance dir', () => rm(applianceDir, { recursive: true, force: true })));
  const cam = new URL(camera.url);
  await writeFile(
    join(applianceDir, 'appliance.toml'),
    [
      `hub_url = ${JSON.stringify(hubUrl)}`,
      'log_level = "info"',
      '[setup]',
      'host = "127.0.0.1"',
      `port = ${appliancePort}`,
      '[uplink]',
      'window_seconds = 5',
      'backoff_base_ms = 200',
      'backoff_cap_ms = 1000',
      '[[cameras]]',
      'id = "gate"',
      'name = "Gate"',
      'vendor = "vendor_a"',
      'mode = "pull"',
      `host = ${JSON.stringify(cam.hostname)}`,
      `port = ${cam.port}`,
      'username = "admin"',
      'password = "pw-rotation"',
      `mac = ${JSON.stringify(camera.mac)}`,
      'timezone = "Europe/Paris"',
      'pollIntervalMs = 200',
      'backoffBaseMs = 100',
      'backoffCapMs = 1000',
      '[[cameras]]',
      'id = "entrance-push"',
      'name = "Entrance"',
      'vendor = "vendor_a"',
      'mode = "push"',
      'mac = "02:00:00:00:00:aa"',
      'timezone = "Europe/Paris"',
    ].join('\n'),
  );
  const appliance = await startApplianceProcess({ env: { ALPR_DATA_DIR: applianceDir }, timeoutMs: 60_000 });
  t.teardown(traced('stop appliance', () => appliance.stop()));
  const pid = appliance.child.pid;

  const claimed = await request(`http://127.0.0.1:${appliancePort}/setup/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ hub_url: hubUrl, claim_code: claimCode }),
  });
  const answer = (await claimed.body.json()) as { collector_id: string; key_prefix: string };
  t.equal(claimed.statusCode, 200, 'claimed through the setup page');
  const collectorId = answer.collector_id;
  mark('appliance claimed');

  const keys = () =>
    query<{ id: string; key_prefix: string; is_active: boolean; last_used_at: Date | null }>(
      'SELECT id, key_prefix, is_active, last_used_at FROM api_keys WHERE collector_id = $1 ORDER BY created_at',
      [collectorId],
    );
  const uploaded = async () => Number((await query<{ n: string }>('SELECT count(*)::text AS n FROM detections'))[0]?.n ?? 0);
  if (!pglite) {
    t.ok(await waitFor(async () => (await uploaded()) > 0, 60_000, 250), 'detections are arriving before the rotation');
  } else {
    await waitFor(async () => false, 8_000, 500);
  }

  // The admin rotates (the CLI runs the same verb as POST /api/v1/collectors/{id}/rotate-key).
  if (pglite) await stopHub();
  const cli = await run(process.execPath, ['--import', 'tsx', join(root, 'hub/src/cli/main.ts'), 'collector', 'rotate-key', collectorId, '--json'], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  if (pglite) hub = await startHubProcess({ env, timeoutMs: 120_000 });
  const rotated = JSON.parse(cli.stdout.trim().split('\n').pop() ?? '{}') as { new_key: string; new_key_id: string; old_key_expires_at: string };
  t.match(rotated.new_key, /^alpr_/);
  mark(`rotated (${pglite ? '?' : await uploaded()} detections stored so far)`);

  const retired = (ks: Awaited<ReturnType<typeof keys>>): boolean =>
    ks.length === 2 && ks.filter((k) => k.is_active).length === 1 && ks.find((k) => k.id === rotated.new_key_id)?.is_active === true;
  let switched: boolean;
  if (!pglite) {
    switched = await waitFor(async () => retired(await keys()), 60_000, 250);
  } else {
    // PGlite allows one process per folder: wait for the appliance to say the command was
    // acknowledged (after its heartbeat on the new key), then read with the hub stopped.
    await waitFor(async () => /command acknowledged/.test(appliance.output().split('switched to the rotated API key')[1] ?? ''), 60_000, 250);
    await stopHub();
    switched = retired(await keys());
  }
  mark('old key deactivated');
  t.ok(switched, 'the old key was deactivated well before its grace period (24 h) ended');
  const [ack] = await query<{ status: string; ack_status: string; ack_detail: string }>(
    "SELECT status, ack_status, ack_detail FROM commands WHERE collector_id = $1 AND type = 'rotate_key'",
    [collectorId],
  );
  t.match(ack, { status: 'acknowledged', ack_status: 'success', ack_detail: /heartbeat on it accepted/ });
  const newKeyRow = (await keys()).find((k) => k.id === rotated.new_key_id);
  t.ok(newKeyRow?.last_used_at, 'the hub shows the new key in use');
  if (pglite) hub = await startHubProcess({ env, timeoutMs: 120_000 });

  // A second camera that only starts now: its reads can only travel on the new key.
  const pusher = await startVendorACamera({
    mode: 'push',
    pushUrl: `http://127.0.0.1:${appliancePort}${pushPath('auto')}`,
    mac: '02:00:00:00:00:aa',
    ratePerSecond: 10,
    count: 20,
    seed: 42,
    pushFormat: 'multipart',
    pushRetries: 10,
    pushRetryDelayMs: 200,
  });
  t.teardown(traced('close pusher', () => pusher.close()));
  await Promise.all([camera.idle(), pusher.idle()]);
  mark('cameras done');
  t.equal(pusher.undelivered.length, 0, 'every push after the rotation was accepted');
  const afterRotation = expectedSightings(pusher.delivered);
  let expected = expectedSightings([...camera.delivered, ...pusher.delivered]);
  let rows: HubRow[] = [];
  const caughtUp = await waitFor(
    async () => {
      // The pull camera hands out its last reads only when the appliance next polls: until
      // then `delivered` lacks reads the hub may already hold.
      if (camera.delivered.length < camera.produced.length) return false;
      expected = expectedSightings([...camera.delivered, ...pusher.delivered]);
      if (pglite) {
        // No reading the hub while it runs: every delivered read seen by the appliance first.
        if (unseenReads(applianceDir, readIds([...camera.delivered, ...pusher.delivered])).length > 0) return false;
      } else {
        rows = await query<HubRow>('SELECT detection_id, plate_number, crop_image_hash, full_image_hash FROM detections');
        if (rows.length < expected.size) return false;
      }
      const status = await request(`http://127.0.0.1:${appliancePort}${STATUS_PATH}`);
      const s = (await status.body.json()) as { buffer: { states: Record<string, number> } };
      return (s.buffer.states['pending'] ?? 0) + (s.buffer.states['in_flight'] ?? 0) === 0;
    },
    120_000,
    500,
  );
  if (pglite) {
    await stopHub();
    rows = await query<HubRow>('SELECT detection_id, plate_number, crop_image_hash, full_image_hash FROM detections');
  }
  mark(`hub holds ${rows.length} detections`);
  t.ok(caughtUp, `hub holds ${rows.length} of ${expected.size} sightings, appliance buffer empty`);
  const arrivedAfter = rows.filter((r) => afterRotation.has(r.plate_number)).length;
  t.ok(
    afterRotation.size > 0 && arrivedAfter === afterRotation.size,
    `uploads continued on the new key: ${arrivedAfter} of ${afterRotation.size} post-rotation sightings stored`,
  );
  t.same(compareWithHub(expected, rows), [], 'every plate exactly once, images intact');

  t.equal(appliance.child.pid, pid, 'same appliance process: switched without a restart');
  t.equal(appliance.child.exitCode, null);
  const applianceLog = appliance.output();
  t.match(applianceLog, /switched to the rotated API key/);
  t.notOk(applianceLog.includes(rotated.new_key), 'the appliance never logged the key');
  t.notOk((hubLog + (hub?.output() ?? '')).includes(rotated.new_key), 'the hub never logged the key');
  if (!t.passing()) t.comment(applianceLog.slice(-4000));
});
