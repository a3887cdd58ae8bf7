/**
 * The appliance's heartbeat carries each camera's state (docs/protocol.md "Heartbeat"), and
 * the hub turns it into health alerts (docs/health.md): the whole appliance (createAppliance)
 * pulling from a vendor_b console simulator, a real hub (createHubApp over a fresh database)
 * on loopback, the hub's evaluator run by hand on its injected clock. The simulator is stopped
 * (camera_offline opens) and started again on the same port (it closes).
 */
import t from 'tap';
import { HEALTH_HEARERS } from '../../hub/src/hearers.ts';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HeartbeatCamera } from '@alpr/shared/protocol/collector';
import { startVendorBNvr, type VendorBNvr } from '../../scripts/simulators/vendor-b-nvr.ts';
import { readEnvironment } from '../../appliance/src/config/load.ts';
import { createLog } from '../../appliance/src/log.ts';
import { createAppliance } from '../../appliance/src/runtime/appliance.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { evaluateHealth, type HealthContext } from '../../hub/src/health/evaluate.ts';
import { claimOverHttp, startTestHub } from './hub-for-appliance.ts';

const hub = await startTestHub(t);
hub.ctx.clock.set(new Date());
const health: HealthContext = { db: hub.ctx.db, clock: hub.ctx.clock, log: hub.ctx.log, config: hub.ctx.config, hearers: HEALTH_HEARERS };

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

interface Beat {
  at: Date;
  cameras: HeartbeatCamera[] | undefined;
}
async function lastBeat(collectorId: string): Promise<Beat | undefined> {
  const [row] = await hub.ctx.db.sql<{ last_heartbeat_at: Date | null; last_heartbeat: { cameras?: HeartbeatCamera[] } | string | null }>(
    'SELECT last_heartbeat_at, last_heartbeat FROM collectors WHERE id = $1',
    [collectorId],
  );
  if (!row?.last_heartbeat_at) return undefined;
  const body = typeof row.last_heartbeat === 'string' ? (JSON.parse(row.last_heartbeat) as { cameras?: HeartbeatCamera[] }) : row.last_heartbeat;
  return { at: new Date(row.last_heartbeat_at), cameras: body?.cameras };
}

/** A heartbeat received at or after `since` on the hub's clock whose camera matches. */
async function beatWhere(collectorId: string, since: Date, ok: (c: HeartbeatCamera) => boolean): Promise<HeartbeatCamera | undefined> {
  let found: HeartbeatCamera | undefined;
  await until(async () => {
    const beat = await lastBeat(collectorId);
    const camera = beat?.cameras?.find((c) => c.id === 'gate');
    if (beat && beat.at >= since && camera && ok(camera)) found = camera;
    return found !== undefined;
  });
  return found;
}

const openAlerts = (collectorId: string) =>
  hub.ctx.db.sql<{ id: string; kind: string; camera_id: string | null; closed_at: Date | null; message: string }>(
    'SELECT id::text AS id, kind, camera_id, closed_at, message FROM health_alerts WHERE collector_id = $1 ORDER BY id',
    [collectorId],
  );

t.test('a vendor_b pull camera stops answering: the heartbeat says OFFLINE, the hub opens camera_offline, and closes it when the camera is back', async (t) => {
  // A 5 s heartbeat pushed by the hub (the shortest the appliance takes) keeps the test short.
  const claimed = await claimOverHttp(t, hub, { heartbeat_interval_seconds: 5 });
  const collectorId = claimed.enrollment.collector_id;
  let nvr: VendorBNvr = await startVendorBNvr({ ratePerSecond: 0, cameraCount: 1, seed: 3 });
  const port = nvr.port;
  t.teardown(() => nvr.close());
  await writeFile(
    join(claimed.dataDir, 'appliance.toml'),
    [
      '[setup]',
      'host = "127.0.0.1"',
      'port = 0',
      '',
      '[[cameras]]',
      'id = "gate"',
      'name = "Gate console"',
      'vendor = "vendor_b"',
      'mode = "pull"',
      'host = "127.0.0.1"',
      `port = ${port}`,
      'tls = false',
      'token = "sim-token"',
      'pollIntervalMs = 100',
      'backoffBaseMs = 50',
      'backoffCapMs = 200',
    ].join('\n'),
  );
  const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: claimed.dataDir }), {
    identity: fixedIdentity(claimed.serial),
    log: createLog('silent'),
    diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
  });
  t.teardown(() => appliance.stop());
  await appliance.start();

  const online = await beatWhere(collectorId, hub.ctx.clock.now(), (c) => c.state === 'ONLINE' && typeof c.cursor_age_seconds === 'number');
  t.match(
    online,
    { id: 'gate', name: 'Gate console', state: 'ONLINE', last_success_at: /^\d{4}-\d\d-\d\dT/, last_error: null },
    'the heartbeat carries the camera, online',
  );
  t.ok((online?.cursor_age_seconds ?? 99) < 30, `a pulled camera reports its cursor age (${online?.cursor_age_seconds} s): nothing waits, so it is current`);
  t.same(await evaluateHealth(health), { opened: [], closed: [] }, 'an online camera: no alert');

  await nvr.close();
  // Six minutes on at the hub: the camera's last success is past the 5-minute offline rule.
  const later = new Date(Date.now() + 6 * 60_000);
  hub.ctx.clock.set(later);
  const offline = await beatWhere(collectorId, later, (c) => c.state === 'OFFLINE');
  t.match(offline, { state: 'OFFLINE', last_error: /\S/ }, `the heartbeat says OFFLINE with the failure (${offline?.last_error})`);
  const opened = await evaluateHealth(health);
  t.equal(opened.opened.length, 1, 'one health alert opened');
  const [alert] = await openAlerts(collectorId);
  t.match(alert, { kind: 'camera_offline', camera_id: 'gate', closed_at: null, message: /^Camera Gate console at Lifecycle is offline/ });
  t.same((await evaluateHealth(health)).opened, [], 'opened once');

  nvr = await startVendorBNvr({ ratePerSecond: 0, cameraCount: 1, seed: 3, port });
  const back = new Date(Math.max(Date.now(), later.getTime()) + 1000);
  hub.ctx.clock.set(back);
  t.ok(await beatWhere(collectorId, back, (c) => c.state === 'ONLINE'), 'the heartbeat says ONLINE again');
  const closed = await evaluateHealth(health);
  t.same(closed.closed, [alert?.id], 'the same alert closed');
  const after = await openAlerts(collectorId);
  t.equal(after.length, 1, 'one alert in the history');
  t.ok(after[0]?.closed_at, 'closed');
});

t.test('a pulled camera that never answered: OFFLINE, no last success, no cursor age; the hub opens camera_offline at its first look', async (t) => {
  const claimed = await claimOverHttp(t, hub, { heartbeat_interval_seconds: 5 });
  // Port 9 (discard): nothing listens on loopback, every pull is refused.
  await writeFile(
    join(claimed.dataDir, 'appliance.toml'),
    [
      '[setup]',
      'host = "127.0.0.1"',
      'port = 0',
      '',
      '[[cameras]]',
      'id = "far"',
      'vendor = "vendor_b"',
      'mode = "pull"',
      'host = "127.0.0.1"',
      'port = 9',
      'tls = false',
      'token = "sim-token"',
      'pollIntervalMs = 100',
      'backoffBaseMs = 50',
      'backoffCapMs = 200',
    ].join('\n'),
  );
  const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: claimed.dataDir }), {
    identity: fixedIdentity(claimed.serial),
    log: createLog('silent'),
    diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
  });
  t.teardown(() => appliance.stop());
  const since = new Date(Math.max(Date.now(), hub.ctx.clock.now().getTime()) + 1000);
  hub.ctx.clock.set(since);
  await appliance.start();
  let camera: HeartbeatCamera | undefined;
  t.ok(
    await until(async () => {
      const beat = await lastBeat(claimed.enrollment.collector_id);
      camera = beat && beat.at >= since ? beat.cameras?.find((c) => c.id === 'far' && c.state === 'OFFLINE') : undefined;
      return camera !== undefined;
    }),
    'the hub took a heartbeat with the camera OFFLINE',
  );
  t.equal(camera?.last_success_at, null, 'never answered');
  t.equal(camera?.cursor_age_seconds, null, 'no cursor age: no opinion on a cursor never read');
  t.match(camera?.last_error, /ECONNREFUSED/);
  await evaluateHealth(health);
  t.match(await openAlerts(claimed.enrollment.collector_id), [{ kind: 'camera_offline', camera_id: 'far', closed_at: null }]);
});
