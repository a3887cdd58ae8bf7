import t from 'tap';
import type { Test } from 'tap';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq } from '../../hub/src/db/database.test-helper.ts';
import { signCommand } from '@alpr/shared/protocol/signing';
import { loadOrCreateHubKey } from '../../hub/src/collectors/hub-key.ts';
import { collectors } from '../../hub/src/db/schema/collectors.ts';
import { commands } from '../../hub/src/db/schema/commands.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { updateConfig } from '../../hub/src/collectors/update-config.ts';
import { loadEnrollment } from '../../appliance/src/keystore/keystore.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { sealToDevice } from '@alpr/shared/protocol/sealed-box';
import { previousLayerFile, readCentralLayer } from '../../appliance/src/config/central-layer.ts';
import { claimOverHttp, fakeAppliance, startTestHeartbeat, startTestHub, type ClaimedAppliance, type FakeAppliance } from './hub-for-appliance.ts';

const hub = await startTestHub(t);
const PASSWORD = 'Cam-Pa55word-7f3a';

const appliance = (t: Test, claimed: ClaimedAppliance, fake: FakeAppliance) => startTestHeartbeat(t, hub, claimed, fake);

const camera = (claimed: ClaimedAppliance, host: string) => ({
  id: 'cam-1',
  vendor: 'vendor_a',
  mode: 'pull',
  host,
  sealed_credentials: sealToDevice(Buffer.from(JSON.stringify({ username: 'admin', password: PASSWORD })), claimed.deviceKeys.publicKey),
});

async function commandRow(id: string | null) {
  const [row] = await hub.ctx.db.db
    .select()
    .from(commands)
    .where(eq(commands.id, id ?? ''));
  return row;
}

t.test('heartbeat delivers a config_update: applied with sealed credentials, acked success', async (t) => {
  const claimed = await claimOverHttp(t, hub, { heartbeat_interval_seconds: 60 });
  const fake = fakeAppliance(claimed, 1);
  const { runner, heartbeat, timers, beat } = appliance(t, claimed, fake);
  const { commandId } = await updateConfig(hub.ctx, SYSTEM_ACTOR, claimed.enrollment.collector_id, {
    heartbeat_interval_seconds: 30,
    cameras: [camera(claimed, '10.0.0.5')],
  });

  await beat();
  t.equal(fake.applied.length, 1, 'applied once');
  t.match(fake.applied[0]?.cameras[0], { id: 'cam-1', host: '10.0.0.5', username: 'admin', password: PASSWORD }, 'credentials opened in memory');
  t.match(
    await commandRow(commandId),
    { status: 'acknowledged', ackStatus: 'success', ackDetail: 'applied config_version 2' },
    'the hub shows it acknowledged',
  );
  t.equal(runner.configVersion(), 2);
  const onDisk = await readFile(claimed.centralConfigFile, 'utf8');
  t.notOk(onDisk.includes(PASSWORD), 'the central layer on disk keeps the credentials sealed');
  t.match(await readCentralLayer(claimed.centralConfigFile), { configVersion: 2, config: { heartbeat_interval_seconds: 30 } });
  t.match(await readCentralLayer(previousLayerFile(claimed.centralConfigFile)), { configVersion: 1 }, 'previous layer kept');

  await beat();
  t.equal(fake.applied.length, 1, 'nothing re-run');
  const [row] = await hub.ctx.db.db.select().from(collectors).where(eq(collectors.id, claimed.enrollment.collector_id));
  t.match(row?.lastHeartbeat, { config_version: 2, cameras_online: 1, cameras_total: 1 }, 'the next heartbeat reports the new version');
  t.equal(heartbeat.state().intervalSeconds, 30, 'the hub interval from the pushed config');
  t.equal(timers.delays.at(-1), 30_000, 'next beat in 30 s');
  t.ok(heartbeat.state().lastOkAt);
});

t.test('secrets typed in clear into the admin config reach the appliance sealed: the hub row, the command and the layer on disk never hold them', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { beat } = appliance(t, claimed, fake);
  const MQTT_PASSWORD = 'broker-secret-7';
  const { commandId } = await updateConfig(hub.ctx, SYSTEM_ACTOR, claimed.enrollment.collector_id, {
    mqtt: { url: 'mqtt://192.0.2.9:1883', username: 'gate', password: MQTT_PASSWORD },
    cameras: [{ id: 'cam-1', vendor: 'vendor_a', mode: 'pull', host: '10.0.0.6', username: 'admin', password: PASSWORD }],
  });

  await beat();
  t.equal(fake.applied.length, 1, 'applied');
  t.match(fake.applied[0]?.mqtt, { url: 'mqtt://192.0.2.9:1883', username: 'gate', password: MQTT_PASSWORD }, 'the MQTT password opened in memory');
  t.match(fake.applied[0]?.cameras[0], { id: 'cam-1', username: 'admin', password: PASSWORD }, 'the camera password opened in memory');
  t.match(await commandRow(commandId), { status: 'acknowledged', ackStatus: 'success' });
  const [row] = await hub.ctx.db.db.select().from(collectors).where(eq(collectors.id, claimed.enrollment.collector_id));
  const command = await commandRow(commandId);
  const onDisk = await readFile(claimed.centralConfigFile, 'utf8');
  for (const secret of [MQTT_PASSWORD, PASSWORD]) {
    t.notOk(JSON.stringify(row?.config).includes(secret), `the hub's row does not hold ${secret}`);
    t.notOk(JSON.stringify(command?.payload).includes(secret), `the signed command does not carry ${secret}`);
    t.notOk(onDisk.includes(secret), `the central layer on disk does not hold ${secret}`);
  }
});

t.test('a config_update that takes a camera OFFLINE is rolled back; an invalid one is refused', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { runner, beat } = appliance(t, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  await updateConfig(hub.ctx, SYSTEM_ACTOR, collectorId, { cameras: [camera(claimed, '10.0.0.5')] });
  await beat();
  t.equal(runner.configVersion(), 2);

  const broken = await updateConfig(hub.ctx, SYSTEM_ACTOR, collectorId, { cameras: [camera(claimed, 'broken.invalid')] });
  await beat();
  const row = await commandRow(broken.commandId);
  t.equal(row?.ackStatus, 'rolled_back');
  t.match(row?.ackDetail, /^config_version 3 rolled back to 2: camera cam-1 went OFFLINE \(connect ENOTFOUND\)/);
  t.match(await readCentralLayer(claimed.centralConfigFile), { configVersion: 2, config: { cameras: [{ host: '10.0.0.5' }] } }, 'previous layer restored');
  t.same(
    fake.applied.map((c) => c.cameras[0]?.host),
    ['10.0.0.5', 'broken.invalid', '10.0.0.5'],
    'previous configuration re-applied',
  );
  t.equal(fake.cameras.get('cam-1'), 'ONLINE');
  t.equal(runner.configVersion(), 2, 'still reports the version it runs');

  const invalid = await updateConfig(hub.ctx, SYSTEM_ACTOR, collectorId, { cameras: [{ id: 'no spaces allowed', vendor: 'vendor_a', mode: 'pull' }] });
  await beat();
  t.match(await commandRow(invalid.commandId), {
    ackStatus: 'failed',
    ackDetail: /^invalid configuration, not applied: invalid configuration at cameras\.0\.id/,
  });
  t.equal(fake.applied.length, 3, 'never applied');
  t.match(await readCentralLayer(claimed.centralConfigFile), { configVersion: 2 }, 'layer untouched');

  const failing = await updateConfig(hub.ctx, SYSTEM_ACTOR, collectorId, { cameras: [camera(claimed, '10.0.0.6')] });
  const good = fake.deps.applyConfig;
  let calls = 0;
  fake.deps.applyConfig = async (config) => {
    calls += 1;
    if (calls === 1) throw new Error('port 8080 in use');
    await good(config);
  };
  await beat();
  t.match(await commandRow(failing.commandId), { ackStatus: 'rolled_back', ackDetail: /config_version 5 rolled back to 2: applying failed: port 8080 in use/ });
  t.equal(fake.applied.at(-1)?.cameras[0]?.host, '10.0.0.5');
});

t.test('a command redelivered while it runs is not run twice; an older config_version is skipped', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  fake.deps.watch = { periodMs: 200, sampleMs: 50 };
  const { heartbeat, runner } = appliance(t, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  const first = await updateConfig(hub.ctx, SYSTEM_ACTOR, collectorId, { cameras: [camera(claimed, '10.0.0.5')] });
  await heartbeat.beatNow();
  await heartbeat.beatNow();
  t.equal((await commandRow(first.commandId))?.status, 'delivered', 'redelivered while the watch runs');
  await heartbeat.idle();
  t.equal(fake.applied.length, 1);
  t.equal((await commandRow(first.commandId))?.ackStatus, 'success');
  t.equal(runner.configVersion(), 2);

  const hubKey = await loadOrCreateHubKey(hub.ctx.db, hub.ctx.clock.now());
  const stale = signCommand(
    { id: randomUUID(), collector_id: collectorId, type: 'config_update', payload: { config: {}, config_version: 2 }, issued_at: new Date().toISOString() },
    hubKey.secretKey,
  );
  t.match(await runner.handle(stale), { kind: 'ack', ack: { status: 'success', detail: 'skipped: config_version 2 is not above 2' } });
  t.equal(fake.applied.length, 1, 'a superseded configuration is not applied');
});

t.test('the credentials of a claimed appliance do not open on another device', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const other = await mkdtemp(join(tmpdir(), 'alpr-other-device-'));
  t.teardown(() => rm(other, { recursive: true, force: true }));
  await cp(claimed.dataDir, other, { recursive: true });
  t.match((await loadEnrollment({ dataDir: claimed.dataDir, identity: fixedIdentity(claimed.serial) })).enrollment, {
    collector_id: claimed.enrollment.collector_id,
  });
  await t.rejects(loadEnrollment({ dataDir: other, identity: fixedIdentity('serial:another-board') }), { code: 'device_mismatch' });
});
