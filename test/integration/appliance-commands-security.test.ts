import t from 'tap';
import { randomUUID } from 'node:crypto';
import { link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { eq } from '../../hub/src/db/database.test-helper.ts';
import nacl from 'tweetnacl';
import { signCommand } from '@alpr/shared/protocol/signing';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { loadOrCreateHubKey } from '../../hub/src/collectors/hub-key.ts';
import { wipeCollector } from '../../hub/src/collectors/wipe.ts';
import { collectors } from '../../hub/src/db/schema/collectors.ts';
import { commands } from '../../hub/src/db/schema/commands.ts';
import { credentialsFileOf, loadApiKey } from '../../appliance/src/keystore/keystore.ts';
import { putCameraCredentials } from '../../appliance/src/vault/credentials.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { claimOverHttp, fakeAppliance, startTestHeartbeat, startTestHub } from './hub-for-appliance.ts';

const hub = await startTestHub(t);
const PASSWORD = 'Wipe-Me-Camera-Pw-91';

async function commandRow(id: string) {
  const [row] = await hub.ctx.db.db.select().from(commands).where(eq(commands.id, id));
  return row;
}

t.test('a command signed with another key is refused, acked failed, and reported', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { beat, heartbeat } = startTestHeartbeat(t, hub, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  const forger = nacl.sign.keyPair();
  const forged = signCommand(
    { id: randomUUID(), collector_id: collectorId, type: 'wipe', payload: {}, issued_at: hub.ctx.clock.now().toISOString() },
    forger.secretKey,
  );
  // Straight into the hub's queue, as an attacker with database access (or a MITM) would.
  await hub.ctx.db.db
    .insert(commands)
    .values({ id: forged.id, collectorId, type: 'wipe', payload: {}, signature: forged.signature, status: 'pending', createdAt: hub.ctx.clock.now() });

  await beat();
  t.equal(fake.stopped, 0, 'not wiped');
  t.match(await commandRow(forged.id), { status: 'acknowledged', ackStatus: 'failed', ackDetail: 'signature invalid' });
  t.equal(heartbeat.state().commandsRefused, 1);
  await beat();
  const [row] = await hub.ctx.db.db.select().from(collectors).where(eq(collectors.id, collectorId));
  t.match(row?.lastHeartbeat, { errors: [`command ${forged.id} refused: signature invalid`] }, 'reported in the next heartbeat');
});

t.test("another collector's command, an unsigned one, and garbage are refused by the runner", async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { runner } = startTestHeartbeat(t, hub, claimed, fake);
  const hubKey = await loadOrCreateHubKey(hub.ctx.db, hub.ctx.clock.now());
  const base = { id: randomUUID(), type: 'wipe' as const, payload: {}, issued_at: new Date().toISOString() };
  const foreign = signCommand({ ...base, collector_id: randomUUID() }, hubKey.secretKey);
  t.match(await runner.handle(foreign), { kind: 'ack', id: base.id, ack: { status: 'failed', detail: 'collector_id mismatch' }, refused: true });
  const { signature: _dropped, ...unsigned } = signCommand({ ...base, collector_id: claimed.enrollment.collector_id }, hubKey.secretKey);
  t.match(await runner.handle(unsigned), { kind: 'ack', ack: { status: 'failed', detail: 'signature invalid' } });
  t.match(await runner.handle({ type: 'wipe' }), { kind: 'refused', reason: 'command refused: malformed' });
  t.equal(fake.stopped, 0, 'nothing ran');
  const genuine = signCommand(
    { ...base, id: randomUUID(), collector_id: claimed.enrollment.collector_id, type: 'config_update', payload: { config: {}, config_version: 2 } },
    hubKey.secretKey,
  );
  t.match(await runner.handle(genuine), { kind: 'ack', ack: { status: 'success' } }, 'the same key and id verify when genuine');
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

t.test('wipe: stop, securely delete, ack, restart unclaimed; no key or password bytes left', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const apiKey = claimed.enrollment.api_key;
  await putCameraCredentials(claimed.vault, 'cam-2', { username: 'admin', password: PASSWORD });
  // A buffer in WAL mode with secrets in it, open until stop() (as the real buffer is).
  const buffer = new BetterSqlite3(join(claimed.dataDir, 'buffer.sqlite'));
  buffer.pragma('journal_mode = WAL');
  buffer.exec('CREATE TABLE leak (v TEXT)');
  buffer.prepare('INSERT INTO leak VALUES (?), (?)').run(apiKey, PASSWORD);
  await mkdir(join(claimed.dataDir, 'logs'));
  await writeFile(join(claimed.dataDir, 'logs', 'appliance.log'), `{"msg":"oops","key":"${apiKey}","password":"${PASSWORD}"}\n`);
  await writeFile(claimed.localConfigFile, '[setup]\nport = 8080\n');
  // A second name for the credentials inode, outside the data dir: shows the bytes were overwritten, not just unlinked.
  const outside = await mkdtemp(join(tmpdir(), 'alpr-wipe-link-'));
  t.teardown(() => rm(outside, { recursive: true, force: true }));
  const inode = join(outside, 'credentials.link');
  await link(credentialsFileOf(claimed.dataDir), inode);
  const sizeBefore = (await readFile(inode)).length;

  let keyInMemory: string | undefined = apiKey;
  const fake = fakeAppliance(claimed, 1, async () => {
    buffer.close();
  });
  fake.deps.restart = async () => {
    fake.restarted += 1;
    keyInMemory = undefined;
  };
  const { beat, heartbeat } = startTestHeartbeat(t, hub, claimed, fake, () => keyInMemory);
  const { commandId } = await wipeCollector(hub.ctx, SYSTEM_ACTOR, claimed.enrollment.collector_id);
  await beat();

  t.equal(fake.stopped, 1, 'stopped first');
  t.equal(fake.restarted, 1, 'restarted after the ack');
  t.match(await commandRow(commandId), { status: 'acknowledged', ackStatus: 'success', ackDetail: /^wiped \d+ files; restarting unclaimed$/ });
  const left = await filesUnder(claimed.dataDir);
  t.same(left, [claimed.localConfigFile], 'only the local installation settings stay');
  for (const file of left) {
    const bytes = await readFile(file);
    t.notOk(bytes.includes(Buffer.from(apiKey)), `${file}: no API key`);
    t.notOk(bytes.includes(Buffer.from(PASSWORD)), `${file}: no camera password`);
  }
  const overwritten = await readFile(inode);
  t.equal(overwritten.length, sizeBefore);
  t.ok(
    overwritten.every((b) => b === 0),
    'the file contents were overwritten (zeros last) before the unlink',
  );
  t.equal(await loadApiKey({ dataDir: claimed.dataDir, identity: fixedIdentity(claimed.serial) }, undefined), undefined, 'unclaimed');

  const before = heartbeat.state().commandsAcknowledged;
  await beat();
  t.equal(heartbeat.state().commandsAcknowledged, before, 'nothing more to ack');
});

t.test('heartbeat failures back off and are kept for diagnostics; a success resets', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  let key = 'alpr_' + 'x'.repeat(43);
  const { heartbeat, timers } = startTestHeartbeat(t, hub, claimed, fake, () => key);
  await heartbeat.beatNow();
  let state = heartbeat.state();
  t.equal(state.keyRejected, true, 'the hub answered 401');
  t.match(state.lastError, /^HTTP 401/);
  t.equal(state.consecutiveFailures, 1);
  t.equal(state.lastOkAt, null);
  const first = timers.delays.at(-1) ?? 0;
  t.ok(first >= 5_000 && first <= 60_000, `retry in ${first} ms: backed off, within the interval`);
  await heartbeat.beatNow();
  const second = timers.delays.at(-1) ?? 0;
  t.ok(second > first, 'the delay grows');

  key = claimed.enrollment.api_key;
  await heartbeat.beatNow();
  state = heartbeat.state();
  t.match(state, { keyRejected: false, lastError: null, consecutiveFailures: 0 });
  t.ok(state.lastOkAt);
  t.equal(timers.delays.at(-1), 60_000, 'back to the interval');
});
