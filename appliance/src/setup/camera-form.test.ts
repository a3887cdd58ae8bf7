import t from 'tap';
import { parseCameraForm } from './camera-form.ts';

t.test('vendor_a pull: entry without secrets, credentials apart, MAC normalized', async (t) => {
  const r = parseCameraForm({
    id: 'gate-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: ' 192.168.1.64 ',
    port: '8081',
    channel: '2',
    timezone: 'Europe/Paris',
    mac: 'AA-BB-CC-00-11-22',
    username: 'admin',
    password: ' s3cret ',
    token: '',
  });
  if (!r.ok) return t.fail(r.errors.join('; '));
  t.same(r.entry, {
    id: 'gate-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.168.1.64',
    timezone: 'Europe/Paris',
    mac: 'aabbcc001122',
    port: 8081,
    channel: 2,
  });
  t.same(r.credentials, { username: 'admin', password: ' s3cret ' });
  t.equal(r.camera.channel, 2);
  t.notOk(JSON.stringify(r.values).includes('s3cret'), 'values to re-render hold no password');
});

t.test('vendor_b needs a token; the token never lands in the entry', async (t) => {
  const missing = parseCameraForm({ id: 'nvr', vendor: 'vendor_b', mode: 'pull', host: '10.0.0.2' });
  t.equal(missing.ok, false);
  if (!missing.ok) t.match(missing.errors.join(), /token/);
  const ok = parseCameraForm({ id: 'nvr', vendor: 'vendor_b', mode: 'pull', host: '10.0.0.2', token: 'tok-123' });
  if (!ok.ok) return t.fail(ok.errors.join('; '));
  t.same(ok.credentials, { token: 'tok-123' });
  t.notOk(JSON.stringify(ok.entry).includes('tok-123'));
});

t.test('refusals name the field and keep the typed values except secrets', async (t) => {
  const r = parseCameraForm({ id: 'bad id!', vendor: 'vendor_a', mode: 'pull', host: 'cam', port: 'eighty', password: 'pw' });
  t.equal(r.ok, false);
  if (r.ok) return;
  t.match(r.errors.join('\n'), /port: a whole number/);
  t.equal(r.values.host, 'cam');
  const r2 = parseCameraForm({ id: 'bad id!', vendor: 'vendor_a', mode: 'pull', host: 'cam', username: 'u', password: 'pw', timezone: 'Mars/Base', mac: 'zz' });
  t.equal(r2.ok, false);
  if (r2.ok) return;
  const joined = r2.errors.join('\n');
  t.match(joined, /^id:/m);
  t.match(joined, /timezone/);
  t.match(joined, /mac/);
  t.notOk(joined.includes('pw'));
  t.same(parseCameraForm({ vendor: 'vendor_x' }).ok, false);
});
