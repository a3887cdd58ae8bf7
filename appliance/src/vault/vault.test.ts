import t from 'tap';
import type { Test } from 'tap';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cameraCredentials, deviceSecretKey, openSealedCredentials, putCameraCredentials, storeDeviceSecretKey } from './credentials.ts';
import { deriveMasterKey, keyMaterial, VAULT_KDF } from './derive-key.ts';
import { hardwareIdentity, fixedIdentity } from './hardware-identity.ts';
import { sealToDevice } from '@alpr/shared/protocol/sealed-box';
import { generateDeviceKeyPair, openSealed } from './sealed.ts';
import { createVault, openVault, vaultFileOf } from './vault.ts';

const COLLECTOR = '6f1c2b1e-3d4a-4c5b-8e9f-0a1b2c3d4e5f';
const PASSWORD = 'S3cret-camera-pw!';

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-vault-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a vault opens on its own device and keeps secrets sealed on disk', async (t) => {
  const dir = await tempDir(t);
  const ctx = { dataDir: dir, identity: fixedIdentity('serial:SN-A') };
  const vault = await createVault(ctx, { collectorId: COLLECTOR, now: new Date('2026-01-15T10:00:00Z') });
  await putCameraCredentials(vault, 'cam-1', { username: 'admin', password: PASSWORD });
  const pair = generateDeviceKeyPair();
  await storeDeviceSecretKey(vault, pair.secretKey);

  const text = await readFile(vaultFileOf(dir), 'utf8');
  t.notOk(text.includes(PASSWORD), 'password not in clear');
  t.notOk(text.includes(Buffer.from(pair.secretKey).toString('base64')), 'device key not in clear');
  t.equal((await stat(vaultFileOf(dir))).mode & 0o777, 0o600, 'mode 0600');
  const stored = JSON.parse(text) as Record<string, unknown>;
  t.match(stored, { kdf: { name: 'pbkdf2-sha256', iterations: 100_000 }, installed_at: '2026-01-15T10:00:00.000Z', collector_id: COLLECTOR });

  const again = await openVault(ctx);
  t.same(cameraCredentials(again, 'cam-1'), { username: 'admin', password: PASSWORD });
  t.same(deviceSecretKey(again), pair.secretKey);
  t.equal(cameraCredentials(again, 'cam-2'), undefined);
});

t.test('moved to another device, or with another collector id, the vault does not open', async (t) => {
  const dir = await tempDir(t);
  const vault = await createVault({ dataDir: dir, identity: fixedIdentity('serial:SN-A') }, { collectorId: COLLECTOR, now: new Date() });
  await putCameraCredentials(vault, 'cam-1', { username: 'admin', password: PASSWORD });

  const other = await tempDir(t);
  await cp(dir, other, { recursive: true });
  await t.rejects(openVault({ dataDir: other, identity: fixedIdentity('serial:SN-B') }), {
    name: 'ApplianceError',
    code: 'device_mismatch',
    message: /does not open on this device: hardware serial, collector id or install time differ/,
  });

  const file = JSON.parse(await readFile(vaultFileOf(dir), 'utf8')) as Record<string, unknown>;
  await writeFile(vaultFileOf(dir), JSON.stringify({ ...file, collector_id: '00000000-0000-4000-8000-000000000000' }));
  await t.rejects(openVault({ dataDir: dir, identity: fixedIdentity('serial:SN-A') }), { code: 'device_mismatch' }, 'wrong collector id');
  await writeFile(vaultFileOf(dir), JSON.stringify({ ...file, installed_at: '2020-01-01T00:00:00.000Z' }));
  await t.rejects(openVault({ dataDir: dir, identity: fixedIdentity('serial:SN-A') }), { code: 'device_mismatch' }, 'wrong install time');
  await t.rejects(openVault({ dataDir: await tempDir(t), identity: fixedIdentity('x') }), { code: 'not_claimed' });
});

t.test('a tampered entry fails authentication; an entry moved to another name does not open', async (t) => {
  const dir = await tempDir(t);
  const ctx = { dataDir: dir, identity: fixedIdentity('serial:SN-A') };
  const vault = await createVault(ctx, { collectorId: COLLECTOR, now: new Date() });
  await putCameraCredentials(vault, 'cam-1', { password: PASSWORD });
  await putCameraCredentials(vault, 'cam-2', { password: 'other' });
  const file = JSON.parse(await readFile(vaultFileOf(dir), 'utf8')) as { entries: Record<string, string> };
  const sealed = Buffer.from(file.entries['camera:cam-1'] ?? '', 'base64');
  sealed[sealed.length - 1] = (sealed[sealed.length - 1] ?? 0) ^ 0x01;
  await writeFile(
    vaultFileOf(dir),
    JSON.stringify({ ...file, entries: { ...file.entries, 'camera:cam-1': sealed.toString('base64'), 'camera:cam-3': file.entries['camera:cam-2'] } }),
  );
  const reopened = await openVault(ctx);
  t.throws(() => cameraCredentials(reopened, 'cam-1'), { code: 'tampered' });
  t.throws(() => cameraCredentials(reopened, 'cam-3'), { code: 'tampered' }, 'per-entry subkeys');
  t.same(cameraCredentials(reopened, 'cam-2'), { password: 'other' });
});

t.test('sealed credentials open only with the device secret key', async (t) => {
  const device = generateDeviceKeyPair();
  const stranger = generateDeviceKeyPair();
  const sealed = sealToDevice(Buffer.from(JSON.stringify({ username: 'admin', password: PASSWORD })), device.publicKey);
  t.notOk(Buffer.from(sealed, 'base64').includes(Buffer.from(PASSWORD)), 'opaque');
  t.same(openSealedCredentials(sealed, device.secretKey), { username: 'admin', password: PASSWORD });
  t.throws(() => openSealed(sealed, stranger.secretKey), { code: 'sealed_unreadable' });
  const bytes = Buffer.from(sealed, 'base64');
  bytes[40] = (bytes[40] ?? 0) ^ 0xff;
  t.throws(() => openSealed(bytes.toString('base64'), device.secretKey), { code: 'sealed_unreadable' }, 'altered nonce');
  t.throws(() => openSealed('AAAA', device.secretKey), { code: 'sealed_unreadable' });
  t.throws(() => openSealedCredentials(sealToDevice(Buffer.from('{"pin":1}'), device.publicKey), device.secretKey), { code: 'corrupt' });
});

t.test('key derivation: PBKDF2-SHA256 100k over length-prefixed inputs', async (t) => {
  t.equal(VAULT_KDF.iterations, 100_000);
  t.not(
    keyMaterial({ collectorId: 'ab', hardwareSerial: 'c', installedAt: 'd' }).toString(),
    keyMaterial({ collectorId: 'a', hardwareSerial: 'bc', installedAt: 'd' }).toString(),
  );
  const salt = new Uint8Array(16);
  const inputs = { collectorId: COLLECTOR, hardwareSerial: 'serial:SN-A', installedAt: '2026-01-15T10:00:00.000Z', salt };
  const a = await deriveMasterKey(inputs);
  t.equal(a.length, 32);
  t.same(await deriveMasterKey(inputs), a, 'deterministic');
  t.notSame(await deriveMasterKey({ ...inputs, hardwareSerial: 'serial:SN-B' }), a);
  const { pbkdf2Sync } = await import('node:crypto');
  t.same(new Uint8Array(pbkdf2Sync(keyMaterial(inputs), salt, 100_000, 32, 'sha256')), a, 'matches a direct PBKDF2 computation');
});

t.test('hardware identity: DMI serial, else hardware uuid, else machine-id; placeholders skipped', async (t) => {
  const sources = (serial?: string, uuid?: string, machine?: string) => ({
    systemSerial: async () => serial,
    hardwareUuid: async () => uuid,
    machineId: async () => machine,
  });
  t.equal(await hardwareIdentity(sources('ABC123', 'u', 'm'))(), 'serial:ABC123');
  t.equal(await hardwareIdentity(sources('To be filled by O.E.M.', 'U-1', 'm'))(), 'uuid:U-1');
  t.equal(await hardwareIdentity(sources('', '', 'f00d'))(), 'machine-id:f00d');
  await t.rejects(hardwareIdentity(sources('Default string', '', ''))(), { code: 'no_hardware_serial' });
  const failing = {
    systemSerial: async () => {
      throw new Error('dmidecode missing');
    },
    hardwareUuid: async () => undefined,
    machineId: async () => 'mid',
  };
  t.equal(await hardwareIdentity(failing)(), 'machine-id:mid');
});
