/**
 * Issue 10 section 2, appliance side against a real hub app on loopback: a rotate_key
 * command is opened with the device key, stored sealed, used at once by every call, proven
 * by a heartbeat, and acknowledged on the new key, which retires the old one on the hub.
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from '../../hub/src/db/database.test-helper.ts';
import { authenticateCollector } from '../../hub/src/collectors/api-key-auth.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { listKeys } from '../../hub/src/collectors/list-keys.ts';
import { revokeKey } from '../../hub/src/collectors/revoke-key.ts';
import { rotateKey } from '../../hub/src/collectors/rotate-key.ts';
import { collectors } from '../../hub/src/db/schema/collectors.ts';
import { commands } from '../../hub/src/db/schema/commands.ts';
import { loadApiKey } from '../../appliance/src/keystore/keystore.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { generateDeviceKeyPair } from '../../appliance/src/vault/sealed.ts';
import { claimOverHttp, fakeAppliance, startTestHeartbeat, startTestHub } from './hub-for-appliance.ts';

const hub = await startTestHub(t);

async function commandRow(id: string | null) {
  const [row] = await hub.ctx.db.db
    .select()
    .from(commands)
    .where(eq(commands.id, id ?? ''));
  return row;
}

t.test('rotate: switch without restart, heartbeat on the new key, ack on it, old key retired', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { beat, heartbeat } = startTestHeartbeat(t, hub, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  const oldKey = claimed.enrollment.api_key;
  await beat();
  const rotated = await rotateKey(hub.ctx, SYSTEM_ACTOR, { collectorId });
  t.equal(rotated.delivery, 'command');

  await beat();
  t.equal(fake.apiKey, rotated.new_key, 'the appliance now sends the new key');
  const stored = await loadApiKey({ dataDir: claimed.dataDir, identity: fixedIdentity(claimed.serial) }, undefined);
  t.match(stored, { apiKey: rotated.new_key, source: 'encrypted_file' }, 'a restart would use the new key');
  for (const name of await readdir(claimed.dataDir)) {
    t.notOk((await readFile(join(claimed.dataDir, name))).includes(Buffer.from(rotated.new_key)), `${name}: no key in clear`);
  }
  const row = await commandRow(rotated.command_id);
  t.match(row, { status: 'acknowledged', ackStatus: 'success', ackDetail: /heartbeat on it accepted/ });

  const keys = await listKeys(hub.ctx, collectorId);
  t.match(
    keys.find((k) => k.id === rotated.new_key_id),
    { status: 'active' },
  );
  t.ok(keys.find((k) => k.id === rotated.new_key_id)?.lastUsedAt, 'the hub shows the new key in use');
  t.match(
    keys.find((k) => k.prefix === oldKey.slice(0, 10)),
    { status: 'inactive' },
    'old key off before its 24 h grace ended',
  );
  await t.rejects(authenticateCollector(hub.ctx, oldKey, null), { code: 'unauthorized' });

  await beat();
  t.equal(heartbeat.state().lastError, null, 'beats go on with the new key');
  t.equal(heartbeat.state().commandsAcknowledged, 1, 'the command ran and was acknowledged once');

  // A process restart that lost track of the ack: the same command again is a no-op success.
  await hub.ctx.db.db
    .update(commands)
    .set({ status: 'delivered', ackStatus: null, acknowledgedAt: null })
    .where(eq(commands.id, rotated.command_id ?? ''));
  const fresh = fakeAppliance(claimed, 1);
  fresh.apiKey = rotated.new_key;
  const again = startTestHeartbeat(t, hub, claimed, fresh);
  await again.beat();
  t.match(await commandRow(rotated.command_id), { ackStatus: 'success', ackDetail: /already in use/ });
  t.equal(fresh.apiKey, rotated.new_key);
});

t.test('a key sealed for another device is refused: acked failed, the old key stays in use', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { beat } = startTestHeartbeat(t, hub, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  // The hub holds another device's public key (a re-imaged box that kept the old enrollment).
  await hub.ctx.db.db
    .update(collectors)
    .set({ publicKey: Buffer.from(generateDeviceKeyPair().publicKey, 'base64') })
    .where(eq(collectors.id, collectorId));
  const rotated = await rotateKey(hub.ctx, SYSTEM_ACTOR, { collectorId });
  await beat();
  t.equal(fake.apiKey, claimed.enrollment.api_key, 'still the old key');
  t.match(await commandRow(rotated.command_id), { ackStatus: 'failed', ackDetail: /does not open with this device key/ });
  t.ok(await authenticateCollector(hub.ctx, claimed.enrollment.api_key, null), 'old key valid until the grace ends: the admin has time');
});

t.test('a new key the hub refuses is rolled back: the appliance keeps working on the old key', async (t) => {
  const claimed = await claimOverHttp(t, hub);
  const fake = fakeAppliance(claimed, 1);
  const { beat, heartbeat } = startTestHeartbeat(t, hub, claimed, fake);
  const collectorId = claimed.enrollment.collector_id;
  const rotated = await rotateKey(hub.ctx, SYSTEM_ACTOR, { collectorId });
  await revokeKey(hub.ctx, SYSTEM_ACTOR, { keyId: rotated.new_key_id, reason: 'issued by mistake' });
  await beat();
  t.equal(fake.apiKey, claimed.enrollment.api_key, 'back on the previous key');
  const stored = await loadApiKey({ dataDir: claimed.dataDir, identity: fixedIdentity(claimed.serial) }, undefined);
  t.equal(stored?.apiKey, claimed.enrollment.api_key, 'and so is the keystore');
  t.match(await commandRow(rotated.command_id), { ackStatus: 'failed', ackDetail: /401/ });
  await beat();
  t.equal(heartbeat.state().lastError, null, 'heartbeats work again');
});
