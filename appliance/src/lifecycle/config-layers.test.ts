import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealToDevice } from '@alpr/shared/protocol/sealed-box';
import { ApplianceError } from '../errors.ts';
import { storeDeviceSecretKey } from '../vault/credentials.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { generateDeviceKeyPair } from '../vault/sealed.ts';
import { createVault } from '../vault/vault.ts';
import { resolveWithCredentials } from './config-layers.ts';

/**
 * Secrets the hub sealed to this device inside its configuration (`{ "$sealed": ... }`,
 * shared/src/protocol/config-secrets.ts) are opened in memory when the layers are resolved.
 */
const dir = await mkdtemp(join(tmpdir(), 'alpr-config-layers-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const vault = await createVault(
  { dataDir: dir, identity: fixedIdentity('serial:SN-LAYERS') },
  { collectorId: '6f1c2b1e-3d4a-4c5b-8e9f-0a1b2c3d4e5f', now: new Date() },
);
const pair = generateDeviceKeyPair();
await storeDeviceSecretKey(vault, pair.secretKey);

const sealed = (text: string, publicKey = pair.publicKey) => ({ $sealed: sealToDevice(new Uint8Array(Buffer.from(text, 'utf8')), publicKey) });

t.test('an MQTT password and a camera password sealed by the hub are opened into the configuration', async (t) => {
  const config = resolveWithCredentials(
    {
      mqtt: { url: 'mqtt://192.0.2.9:1883', username: 'gate', password: sealed('broker-pw') },
      cameras: [{ id: 'cam-1', vendor: 'vendor_a', mode: 'pull', host: '192.0.2.7', username: 'admin', password: sealed('cam-pw') }],
    },
    undefined,
    vault,
  );
  t.equal(config.mqtt?.password, 'broker-pw');
  t.match(config.cameras[0], { id: 'cam-1', username: 'admin', password: 'cam-pw' });
});

t.test('a clear value in the local layer wins over the sealed one from the hub', async (t) => {
  const config = resolveWithCredentials({ mqtt: { url: 'mqtt://192.0.2.9:1883', password: sealed('from-hub') } }, { mqtt: { password: 'typed-here' } }, vault);
  t.equal(config.mqtt?.password, 'typed-here');
});

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

t.test('a secret sealed to another device, or with no vault, is refused naming the key, never passed on sealed', async (t) => {
  const other = generateDeviceKeyPair();
  const foreign = caught(() => resolveWithCredentials({ mqtt: { url: 'mqtt://192.0.2.9:1883', password: sealed('x', other.publicKey) } }, undefined, vault));
  t.ok(foreign instanceof ApplianceError);
  t.match(foreign, { code: 'sealed_unreadable', message: /^mqtt\.password: .*another device/ });
  const noVault = caught(() => resolveWithCredentials({ mqtt: { url: 'mqtt://192.0.2.9:1883', password: sealed('x') } }, undefined, undefined));
  t.match(noVault, { code: 'not_claimed', message: /mqtt\.password/ });
  const short = caught(() => resolveWithCredentials({ mqtt: { url: 'mqtt://192.0.2.9:1883', password: { $sealed: 'AAAA' } } }, undefined, vault));
  t.match(short, { code: 'sealed_unreadable', message: /too short/ }, 'too short to be a box');
});
