import t from 'tap';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import TOML from '@iarna/toml';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { SETUP_VAULT_DIR } from './camera-store.ts';
import { postForm, postJson, startSetup } from './setup.test-helper.ts';

/** Cameras on the setup page: stored (secrets in the vault), listed, and tested for real. */

const camA = await startVendorACamera({ username: 'admin', password: 'cam-Pa55', ratePerSecond: 0, algorithm: 'SHA-256' });
t.teardown(() => camA.close());
const nvr = await startVendorBNvr({ token: 'nvr-tok-98765', cameraCount: 3, ratePerSecond: 0 });
t.teardown(() => nvr.close());

const vendorA = (id: string, password: string): Record<string, string> => ({
  id,
  vendor: 'vendor_a',
  mode: 'pull',
  host: '127.0.0.1',
  port: String(camA.port),
  username: 'admin',
  password,
  timezone: 'Europe/Paris',
  channel: '1',
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

t.test('a camera is saved to the TOML without secrets, its password sealed in the setup vault', async (t) => {
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/cameras', vendorA('gate-1', 'cam-Pa55'));
  t.equal(res.status, 303);
  t.equal(setup.camerasChanged, 1);
  const tomlText = await readFile(setup.localConfigFile, 'utf8');
  t.same(TOML.parse(tomlText)['cameras'], [
    { id: 'gate-1', vendor: 'vendor_a', mode: 'pull', host: '127.0.0.1', timezone: 'Europe/Paris', port: camA.port, channel: 1 },
  ]);
  t.notOk(tomlText.includes('cam-Pa55'), 'no password in the TOML');
  const vaultDir = join(setup.dataDir, SETUP_VAULT_DIR);
  for (const file of await readdir(vaultDir)) t.notOk((await readFile(join(vaultDir, file), 'utf8')).includes('cam-Pa55'), `${file} holds no clear password`);
  const page = await (await fetch(`${setup.base}/`)).text();
  t.match(page, /gate-1/);
  t.match(page, /stored encrypted/);
  t.notOk(page.includes('cam-Pa55'), 'the password is not echoed');

  const dup = await postForm(setup.base, '/setup/cameras', vendorA('gate-1', 'other-Secret'));
  t.equal(dup.status, 409);
  const dupPage = await dup.text();
  t.match(dupPage, /already exists/);
  t.notOk(dupPage.includes('other-Secret'));
});

t.test("the camera form speaks the installer's words and checks values as they are typed", async (t) => {
  const setup = await startSetup(t);
  const page = await (await fetch(`${setup.base}/`)).text();
  t.match(page, /<option value="vendor_a"[^>]*>ISAPI camera or NVR \(Digest login\)<\/option>/);
  t.match(page, /<option value="vendor_b"[^>]*>Protect console \(API key\)<\/option>/);
  t.match(page, /<legend>ISAPI camera or NVR, polled by this device<\/legend>/, 'the fields each kind needs are grouped under it');
  t.match(page, /<legend>Protect console<\/legend>/);
  t.match(page, /name="port" type="number" value="" min="1" max="65535"/, 'the browser checks the port range');
  t.match(page, /name="mac" type="text" value="" placeholder="[^"]+" pattern="/, 'and the MAC shape');
  t.notOk(/<script/i.test(page), 'no JavaScript needed');
  t.match(page, /--accent: #0b5cad/, "the dashboard's stylesheet, inlined");
  t.match(page, /@media \(max-width: 640px\)/, 'laid out for a phone');
});

t.test('a refused camera form keeps what was typed except the secrets', async (t) => {
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/cameras', { ...vendorA('bad id', 'typed-Secret'), port: 'eighty' });
  t.equal(res.status, 400);
  const page = await res.text();
  t.match(page, /port: a whole number/);
  t.match(page, 'value="bad id"');
  t.notOk(page.includes('typed-Secret'));
  const json = await postJson(setup.base, '/setup/cameras', { id: 'nvr', vendor: 'vendor_b', mode: 'pull', host: '127.0.0.1' });
  t.equal(json.status, 400);
  t.match(await json.json(), { error: { code: 'bad_request', message: /token/ } });
});

t.test('test connection: vendor_a Digest, what the camera answered', async (t) => {
  const setup = await startSetup(t);
  await postForm(setup.base, '/setup/cameras', vendorA('gate-1', 'cam-Pa55'));
  await postForm(setup.base, '/setup/cameras', vendorA('gate-wrong', 'not-the-password'));
  const ok = await postForm(setup.base, '/setup/cameras/gate-1/test', {});
  t.equal(ok.status, 200);
  const page = await ok.text();
  t.match(page, /Connected: the camera accepted the credentials/);
  t.match(page, /Without credentials: HTTP 401/);
  t.match(page, /Authentication asked: digest \(realm &quot;IP Camera&quot;, algorithm SHA-256/);
  t.match(page, /Model: SIM-ANPR/);
  t.match(page, `MAC address: ${camA.mac}`);
  t.notOk(page.includes('cam-Pa55'));

  const wrong = await postJson(setup.base, '/setup/cameras/gate-wrong/test', {});
  t.match(await wrong.json(), { ok: false, summary: /refused the username or password \(HTTP 401\)/, facts: [['Without credentials', 'HTTP 401']] });
  const page2 = await (await fetch(`${setup.base}/`)).text();
  t.match(page2, /Connected: the camera accepted/, 'results stay on the page');
  t.match(page2, /refused the username or password/);
  t.equal((await postJson(setup.base, '/setup/cameras/nope/test', {})).status, 404);
});

t.test('test connection: vendor_b token, bootstrap camera count', async (t) => {
  const setup = await startSetup(t);
  const base = { vendor: 'vendor_b', mode: 'pull', host: '127.0.0.1', port: String(nvr.port) };
  t.equal((await postJson(setup.base, '/setup/cameras', { id: 'nvr', ...base, token: 'nvr-tok-98765' })).status, 201);
  t.equal((await postJson(setup.base, '/setup/cameras', { id: 'nvr-bad', ...base, token: 'wrong' })).status, 201);
  // The simulator speaks plain http; vendor_b defaults to https, so say so in the TOML.
  const toml = TOML.parse(await readFile(setup.localConfigFile, 'utf8')) as { cameras: Record<string, unknown>[] };
  for (const c of toml.cameras) c['tls'] = false;
  await writeFile(setup.localConfigFile, TOML.stringify(toml as TOML.JsonMap));
  t.match(await (await postJson(setup.base, '/setup/cameras/nvr/test', {})).json(), {
    ok: true,
    summary: /lists 3 camera\(s\)/,
    facts: [
      ['With the stored token', 'HTTP 200'],
      ['Console', 'Simulated NVR'],
      ['Version', '6.1.0'],
      ['Cameras on the console', '3'],
    ],
  });
  t.match(await (await postJson(setup.base, '/setup/cameras/nvr-bad/test', {})).json(), { ok: false, summary: /refused the token \(HTTP 401\)/ });
  const page = await (await fetch(`${setup.base}/`)).text();
  t.notOk(page.includes('nvr-tok-98765'));
});

t.test('test connection: nobody listening', async (t) => {
  const setup = await startSetup(t);
  const port = await closedPort();
  await postForm(setup.base, '/setup/cameras', { ...vendorA('gone', 'x'), port: String(port) });
  const page = await (await postForm(setup.base, '/setup/cameras/gone/test', {})).text();
  t.match(page, new RegExp(`No answer: cannot reach http://127\\.0\\.0\\.1:${port}/ISAPI/System/deviceInfo: ECONNREFUSED`));
});
