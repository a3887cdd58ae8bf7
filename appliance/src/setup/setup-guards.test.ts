import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hostNameOf, isAcceptedHost } from '../http/request-guards.ts';
import { postForm, postJson, startSetup } from './setup.test-helper.ts';

/** Who may talk to the setup page: LAN peers only, the page's own origin, a known Host. */

t.test('a peer outside the LAN gets 403 on every setup path', async (t) => {
  const setup = await startSetup(t, { addressOf: () => '203.0.113.7' });
  const page = await fetch(`${setup.base}/`);
  t.equal(page.status, 403);
  t.same(await page.json(), { error: { code: 'forbidden', message: 'the setup interface answers the local network only' } });
  t.equal((await postForm(setup.base, '/setup/claim', { claim_code: 'ALPR-2345-6789' })).status, 403);
  t.equal((await postJson(setup.base, '/setup/cameras', { id: 'x' })).status, 403);
  t.equal((await fetch(`${setup.base}/`, { headers: { 'x-forwarded-for': '192.168.1.5' } })).status, 403, 'X-Forwarded-For is not believed');
});

t.test('an IPv4-mapped LAN peer is let in; an unknown peer address is refused', async (t) => {
  const mapped = await startSetup(t, { addressOf: () => '::ffff:192.168.1.9' });
  t.equal((await fetch(`${mapped.base}/`)).status, 200);
  const unknown = await startSetup(t, { addressOf: () => undefined });
  t.equal((await fetch(`${unknown.base}/`)).status, 403);
});

t.test('the real socket address (127.0.0.1) is read through getConnInfo', async (t) => {
  const setup = await startSetup(t);
  t.equal((await fetch(`${setup.base}/`)).status, 200);
});

t.test('a cross-site form post is refused before anything happens (CSRF)', async (t) => {
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/cameras', { id: 'cam', vendor: 'vendor_a', mode: 'push' }, { origin: 'http://evil.example' });
  t.equal(res.status, 403);
  t.notOk(existsSync(join(setup.dataDir, 'appliance.toml')), 'no camera written');
  const claim = await postForm(
    setup.base,
    '/setup/claim',
    { hub_url: 'https://evil.example', claim_code: 'ALPR-2345-6789' },
    { origin: 'http://evil.example' },
  );
  t.equal(claim.status, 403);
  t.equal((await postForm(setup.base, '/setup/cameras', { id: 'cam', vendor: 'vendor_a', mode: 'push' })).status, 303, 'same origin accepted');
});

t.test('Host names: IP literals, localhost, .local and configured names only (DNS rebinding)', async (t) => {
  t.equal(hostNameOf('[fe80::1]:8080'), 'fe80::1');
  t.equal(hostNameOf('Appliance.LOCAL:8080'), 'appliance.local');
  const table: [string | undefined, boolean][] = [
    ['192.168.1.20:8080', true],
    ['[fd00::5]:8080', true],
    ['localhost:8080', true],
    ['alpr-gate.local', true],
    ['gate.example.lan', true],
    ['evil.example.com:8080', false],
    ['192.168.1.20.nip.io', false],
    [undefined, false],
    ['', false],
  ];
  for (const [host, expected] of table) t.equal(isAcceptedHost(host, ['gate.example.lan']), expected, String(host));
  const setup = await startSetup(t);
  const { request } = await import('undici');
  const rebound = await request(`${setup.base}/`, { headers: { host: 'evil.example.com' } });
  t.equal(rebound.statusCode, 403);
  await rebound.body.dump();
});

t.test('a body over 16 KB is refused', async (t) => {
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/cameras', { id: 'x'.repeat(20_000) });
  t.equal(res.status, 413);
});
