import t from 'tap';
import nacl from 'tweetnacl';
import { canonicalJson, signCommand, verifyCommandSignature } from './signing.ts';

const keys = nacl.sign.keyPair();
const publicKey = Buffer.from(keys.publicKey).toString('base64');
const command = {
  id: '6f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f',
  collector_id: '0b7e3c1a-2f4d-4e6a-8b9c-1d2e3f4a5b6c',
  type: 'config_update' as const,
  payload: { config: { heartbeat_interval_seconds: 30, cameras: [{ id: 'c1' }] }, config_version: 2 },
  issued_at: '2030-01-02T03:04:05.000Z',
};

t.test('canonical JSON sorts keys at every depth', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
});

t.test('a signed command verifies; any change or another key does not', async (t) => {
  const signed = signCommand(command, keys.secretKey);
  t.ok(verifyCommandSignature(signed, publicKey));
  t.ok(
    verifyCommandSignature({ ...signed, payload: { config_version: 2, config: { cameras: [{ id: 'c1' }], heartbeat_interval_seconds: 30 } } }, publicKey),
    'key order does not matter',
  );
  t.notOk(verifyCommandSignature({ ...signed, type: 'wipe' }, publicKey), 'type changed');
  t.notOk(verifyCommandSignature({ ...signed, collector_id: '00000000-0000-4000-8000-000000000000' }, publicKey), 'other collector');
  t.notOk(verifyCommandSignature({ ...signed, payload: { ...command.payload, config_version: 3 } }, publicKey), 'payload changed');
  t.notOk(verifyCommandSignature(signed, Buffer.from(nacl.sign.keyPair().publicKey).toString('base64')), 'other key');
  t.notOk(verifyCommandSignature({ ...signed, signature: '' }, publicKey), 'unsigned');
  t.notOk(verifyCommandSignature({ ...signed, signature: 'not base64!!' }, publicKey), 'garbage signature');
});
