import t from 'tap';
import { cameraConfigSchema } from '../cameras/config.ts';
import { admitPush, normalizeAddress } from './ingest-admission.ts';

const camera = (extra: Record<string, unknown>) => cameraConfigSchema.parse({ id: 'gate', vendor: 'vendor_a', mode: 'push', ...extra });
const SECRET = 'sixteen-chars-secret';

t.test('address forms compare equal', async (t) => {
  t.equal(normalizeAddress('::ffff:192.168.1.9'), '192.168.1.9');
  t.equal(normalizeAddress('FE80::1%eth0'), 'fe80::1');
  t.equal(normalizeAddress('[::1]'), '::1');
});

t.test('pinning, secret, unknown cameras', async (t) => {
  const base = { presentedSecret: undefined, acceptUnknown: true };
  t.match(await admitPush({ ...base, camera: camera({ host: '192.168.1.64' }), peer: '::ffff:192.168.1.64' }), { ok: true }, 'the host, IPv4-mapped');
  t.match(await admitPush({ ...base, camera: camera({ host: '192.168.1.64' }), peer: '192.168.1.65' }), { ok: false, code: 'wrong_source' });
  t.match(
    await admitPush({ ...base, camera: camera({ host: '192.168.1.64', pushSource: '192.168.1.200' }), peer: '192.168.1.200' }),
    { ok: true },
    'pushSource overrides host',
  );
  t.match(await admitPush({ ...base, camera: camera({ host: '192.168.1.64', pushSource: 'any' }), peer: '10.1.2.3' }), { ok: true }, 'any: no pin');
  t.match(await admitPush({ ...base, camera: camera({}), peer: '10.1.2.3' }), { ok: true }, 'no host: no pin');
  const named = camera({ host: 'gate-cam.local' });
  const resolve = async () => ['192.168.1.64'];
  t.match(await admitPush({ ...base, camera: named, peer: '192.168.1.64', resolve }), { ok: true }, 'a host name is resolved');
  t.match(await admitPush({ ...base, camera: named, peer: '192.168.1.9', resolve }), { ok: false, code: 'wrong_source' });
  t.match(
    await admitPush({ ...base, camera: named, peer: '192.168.1.64', resolve: async () => Promise.reject(new Error('ENOTFOUND')) }),
    { ok: false, code: 'wrong_source' },
    'unresolvable: refused',
  );
  const withSecret = camera({ pushSecret: SECRET });
  t.match(await admitPush({ ...base, camera: withSecret, peer: '10.0.0.1' }), { ok: false, code: 'bad_push_secret' });
  t.match(await admitPush({ ...base, camera: withSecret, peer: '10.0.0.1', presentedSecret: `${SECRET}x` }), { ok: false, code: 'bad_push_secret' });
  t.match(await admitPush({ ...base, camera: withSecret, peer: '10.0.0.1', presentedSecret: SECRET }), { ok: true });
  t.match(await admitPush({ ...base, camera: undefined, peer: '10.0.0.1' }), { ok: true }, 'unknown camera, default');
  t.match(await admitPush({ ...base, acceptUnknown: false, camera: undefined, peer: '10.0.0.1' }), { ok: false, code: 'unknown_camera' });
  t.throws(() => camera({ pushSecret: 'short' }), /at least 16/);
});
