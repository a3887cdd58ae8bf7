import t from 'tap';
import { baseUrlOf, cameraConfigSchema, cameraListSchema, contextOf, pollIntervalOf, verifiesTls } from './config.ts';

t.test('defaults per vendor and normalized MAC', async (t) => {
  const a = cameraConfigSchema.parse({
    id: 'gate',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '10.0.0.5',
    username: 'admin',
    password: 'x',
    mac: 'BC-5E-33-01-02-03',
  });
  t.equal(a.mac, 'bc5e33010203');
  t.equal(pollIntervalOf(a), 2000, 'vendor_a polls every 2 s');
  t.equal(a.channel, 1);
  t.equal(a.backoffBaseMs, 1000);
  t.equal(a.backoffCapMs, 60000);
  t.equal(baseUrlOf(a), 'http://10.0.0.5');
  t.equal(verifiesTls(a), true);
  t.same(contextOf(a), { camera: { id: 'gate', mac: 'bc5e33010203' }, directionMapping: { forward: 'entering', reverse: 'exiting' } });

  const b = cameraConfigSchema.parse({ id: 'nvr', vendor: 'vendor_b', mode: 'push', host: 'fe80::1', token: 't' });
  t.equal(pollIntervalOf(b), 5000);
  t.equal(baseUrlOf(b), 'https://[fe80::1]', 'vendor_b defaults to TLS');
  t.equal(baseUrlOf(b, 'ws'), 'wss://[fe80::1]');
  t.equal(verifiesTls(b), false, 'self-signed consoles accepted unless asked');
});

t.test('rejects what cannot work', async (t) => {
  const bad = [
    { id: 'x', vendor: 'vendor_a', mode: 'pull', username: 'u' }, // no host
    { id: 'x', vendor: 'vendor_a', mode: 'pull', host: 'h' }, // no Digest user
    { id: 'x', vendor: 'vendor_b', mode: 'pull', host: 'h' }, // no token
    { id: 'x', vendor: 'vendor_c', mode: 'pull', host: 'h' },
    { id: 'x y', vendor: 'vendor_a', mode: 'push' },
    { id: 'x', vendor: 'vendor_a', mode: 'push', mac: 'zz:11:22:33:44:55' },
    { id: 'x', vendor: 'vendor_a', mode: 'push', timezone: 'Mars/Olympus' },
  ];
  for (const input of bad) t.notOk(cameraConfigSchema.safeParse(input).success, JSON.stringify(input));
  t.ok(cameraConfigSchema.safeParse({ id: 'x', vendor: 'vendor_a', mode: 'push' }).success, 'a push camera needs no host');
  const dup = cameraListSchema.safeParse([
    { id: 'x', vendor: 'vendor_a', mode: 'push' },
    { id: 'x', vendor: 'vendor_a', mode: 'push' },
  ]);
  t.notOk(dup.success, 'duplicate ids');
});
