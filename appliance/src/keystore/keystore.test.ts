import t from 'tap';
import type { Test } from 'tap';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCentralLayer } from '../config/central-layer.ts';
import { deviceSecretKey } from '../vault/credentials.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { generateDeviceKeyPair } from '../vault/sealed.ts';
import { centralConfigFileOf, clearEnrollment, credentialsFileOf, loadApiKey, loadEnrollment, replaceStoredApiKey, storeEnrollment } from './keystore.ts';

const API_KEY = 'alpr_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdEFG';
const enrollment = {
  collector_id: '6f1c2b1e-3d4a-4c5b-8e9f-0a1b2c3d4e5f',
  api_key: API_KEY,
  hub_url: 'http://127.0.0.1:1',
  hub_public_key: Buffer.alloc(32, 7).toString('base64'),
  config: { heartbeat_interval_seconds: 30 },
  config_version: 1,
};

async function claimedDir(t: Test, serial = 'serial:SN-A') {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-keystore-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const ctx = { dataDir, identity: fixedIdentity(serial), now: () => new Date('2026-01-15T10:00:00Z') };
  const keys = generateDeviceKeyPair();
  const stored = await storeEnrollment(ctx, enrollment, keys);
  return { ctx, keys, stored };
}

t.test('storeEnrollment seals the key; loadApiKey prefers the environment, then the file', async (t) => {
  const { ctx, keys, stored } = await claimedDir(t);
  t.equal(stored.keyPrefix, 'alpr_AbCdE', 'only the prefix is handed back for display');
  for (const name of await readdir(ctx.dataDir)) {
    const bytes = await readFile(join(ctx.dataDir, name));
    t.notOk(bytes.includes(Buffer.from(API_KEY)), `${name}: no key in clear`);
    t.equal((await stat(join(ctx.dataDir, name))).mode & 0o777, 0o600, `${name}: mode 0600`);
  }
  t.same(await loadApiKey(ctx, undefined), { apiKey: API_KEY, source: 'encrypted_file', keyPrefix: 'alpr_AbCdE' });
  t.match(await loadApiKey(ctx, 'alpr_fromTheEnvironment'), { apiKey: 'alpr_fromTheEnvironment', source: 'environment' });
  const { enrollment: loaded, vault } = await loadEnrollment(ctx);
  t.match(loaded, { collector_id: enrollment.collector_id, hub_url: enrollment.hub_url, hub_public_key: enrollment.hub_public_key });
  t.same(deviceSecretKey(vault), keys.secretKey, 'the device box key is in the vault');
  t.same(await readCentralLayer(centralConfigFileOf(ctx.dataDir)), { config: { heartbeat_interval_seconds: 30 }, configVersion: 1 });
});

t.test('the credentials file does not open elsewhere, nor after an edit', async (t) => {
  const { ctx } = await claimedDir(t);
  const moved = await mkdtemp(join(tmpdir(), 'alpr-keystore-moved-'));
  t.teardown(() => rm(moved, { recursive: true, force: true }));
  await cp(ctx.dataDir, moved, { recursive: true });
  await t.rejects(loadApiKey({ dataDir: moved, identity: fixedIdentity('serial:SN-B') }, undefined), { code: 'device_mismatch' });

  const file = JSON.parse(await readFile(credentialsFileOf(ctx.dataDir), 'utf8')) as { sealed: string };
  const bytes = Buffer.from(file.sealed, 'base64');
  bytes[30] = (bytes[30] ?? 0) ^ 0x20;
  await writeFile(credentialsFileOf(ctx.dataDir), JSON.stringify({ ...file, sealed: bytes.toString('base64') }));
  await t.rejects(loadApiKey(ctx, undefined), { code: 'tampered', message: /credentials\.enc does not authenticate/ });
});

t.test('clearEnrollment: back to unclaimed', async (t) => {
  const { ctx } = await claimedDir(t);
  await clearEnrollment(ctx);
  t.equal(await loadApiKey(ctx, undefined), undefined);
  t.same((await readdir(ctx.dataDir)).sort(), ['central-config.json'], "config is the wipe command's job");
});

t.test('rotation: the sealed file takes the new key; an environment key it replaced is stale', async (t) => {
  const { ctx, stored } = await claimedDir(t);
  const NEW_KEY = 'alpr_NeWkEyNeWkEyNeWkEyNeWkEyNeWkEyNeWkEyNeWkEyA';
  t.same(await replaceStoredApiKey(ctx, stored.vault, NEW_KEY), { previousPrefix: 'alpr_AbCdE', keyPrefix: 'alpr_NeWkE' });
  for (const name of await readdir(ctx.dataDir)) {
    t.notOk((await readFile(join(ctx.dataDir, name))).includes(Buffer.from(NEW_KEY)), `${name}: no new key in clear`);
  }
  t.same(await loadApiKey(ctx, undefined), { apiKey: NEW_KEY, source: 'encrypted_file', keyPrefix: 'alpr_NeWkE' });
  const { enrollment: loaded } = await loadEnrollment(ctx);
  t.match(
    loaded,
    { collector_id: enrollment.collector_id, hub_public_key: enrollment.hub_public_key, replaced_key_prefixes: ['alpr_AbCdE'] },
    'the rest of the enrollment kept',
  );

  t.same(
    await loadApiKey(ctx, API_KEY),
    { apiKey: NEW_KEY, source: 'encrypted_file', keyPrefix: 'alpr_NeWkE', staleEnvironmentPrefix: 'alpr_AbCdE' },
    'ALPR_API_KEY holding the replaced key would be refused after the grace: the file wins',
  );
  t.match(await loadApiKey(ctx, 'alpr_someOtherOperatorKey'), { apiKey: 'alpr_someOtherOperatorKey', source: 'environment' }, 'any other override still wins');

  await replaceStoredApiKey(ctx, stored.vault, API_KEY);
  t.match(await loadApiKey(ctx, undefined), { apiKey: API_KEY }, 'switching back (hub refused the new key) restores the old one');
  t.same((await loadEnrollment(ctx)).enrollment.replaced_key_prefixes, ['alpr_NeWkE']);
});
