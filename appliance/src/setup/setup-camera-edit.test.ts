import t from 'tap';
import { readFile } from 'node:fs/promises';
import TOML from '@iarna/toml';
import { cameraCredentials } from '../vault/credentials.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { openSetupVault } from './camera-store.ts';
import { postForm, postJson, startSetup, type TestSetup } from './setup.test-helper.ts';

/** Editing and removing cameras on the setup page, over real HTTP; secrets stay in the setup vault. */

const gate = { id: 'gate-1', vendor: 'vendor_a', mode: 'pull', host: '192.168.1.64', username: 'admin', password: 'first-Pa55', timezone: 'Europe/Paris' };
const tomlCameras = async (s: TestSetup): Promise<Record<string, unknown>[]> =>
  (TOML.parse(await readFile(s.localConfigFile, 'utf8'))['cameras'] as Record<string, unknown>[] | undefined) ?? [];
const vaulted = async (s: TestSetup, id: string) => {
  const vault = await openSetupVault(s.dataDir, fixedIdentity(s.serial));
  return vault ? cameraCredentials(vault, id) : undefined;
};

t.test('edit: the form comes back filled without secrets; blank secrets are kept, typed ones replace', async (t) => {
  const setup = await startSetup(t);
  t.equal((await postForm(setup.base, '/setup/cameras', gate)).status, 303);
  const form = await (await fetch(`${setup.base}/setup/cameras/gate-1/edit`)).text();
  t.match(form, /action="\/setup\/cameras\/gate-1"/, 'the edit form posts to the camera');
  t.match(form, /value="192\.168\.1\.64"/, 'host filled in');
  t.match(form, /value="admin"/, 'username filled in');
  t.notOk(form.includes('first-Pa55'), 'the password is never rendered');

  const moved = await postForm(setup.base, '/setup/cameras/gate-1', {
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.168.1.70',
    port: '8080',
    timezone: 'Europe/Paris',
    password: '',
  });
  t.equal(moved.status, 303);
  t.same(await tomlCameras(setup), [{ id: 'gate-1', vendor: 'vendor_a', mode: 'pull', host: '192.168.1.70', timezone: 'Europe/Paris', port: 8080 }]);
  t.same(await vaulted(setup, 'gate-1'), { username: 'admin', password: 'first-Pa55' }, 'blank password: the stored one kept');
  t.equal(setup.camerasChanged, 2, 'the runners are restarted with the change');

  const rekeyed = await postJson(setup.base, '/setup/cameras/gate-1', {
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.168.1.70',
    username: 'operator',
    password: 'second-Pa55',
    push_secret: 'a-push-secret-of-16+',
  });
  t.equal(rekeyed.status, 200);
  t.same(await vaulted(setup, 'gate-1'), { username: 'operator', password: 'second-Pa55', pushSecret: 'a-push-secret-of-16+' });
  t.notOk((await readFile(setup.localConfigFile, 'utf8')).includes('second-Pa55'), 'no secret in the TOML');
});

t.test('edit: invalid input and unknown cameras are refused and change nothing', async (t) => {
  const setup = await startSetup(t);
  await postForm(setup.base, '/setup/cameras', gate);
  const before = await readFile(setup.localConfigFile, 'utf8');
  const bad = await postForm(setup.base, '/setup/cameras/gate-1', {
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.168.1.64',
    port: '99999999',
    password: 'leaked-Pa55',
  });
  t.equal(bad.status, 400);
  const page = await bad.text();
  t.match(page, /port: a whole number/);
  t.notOk(page.includes('leaked-Pa55'), 'a refused password is not echoed');
  const noHost = await postJson(setup.base, '/setup/cameras/gate-1', { vendor: 'vendor_a', mode: 'pull' });
  t.equal(noHost.status, 400);
  t.match(await noHost.json(), { error: { code: 'bad_request', message: /host is required/ } });
  t.equal(await readFile(setup.localConfigFile, 'utf8'), before, 'the TOML is untouched');
  t.same(await vaulted(setup, 'gate-1'), { username: 'admin', password: 'first-Pa55' }, 'the vault is untouched');
  t.equal((await postJson(setup.base, '/setup/cameras/nope', { vendor: 'vendor_a', mode: 'push' })).status, 404);
  t.equal((await fetch(`${setup.base}/setup/cameras/nope/edit`)).status, 404);
});

t.test('remove: the entry and its vaulted secret go; unknown is 404', async (t) => {
  const setup = await startSetup(t);
  await postForm(setup.base, '/setup/cameras', gate);
  await postForm(setup.base, '/setup/cameras', { id: 'nvr', vendor: 'vendor_b', mode: 'pull', host: '192.168.1.2', token: 'nvr-token-1' });
  const removed = await postForm(setup.base, '/setup/cameras/gate-1/delete', {});
  t.equal(removed.status, 303);
  t.same(
    (await tomlCameras(setup)).map((c) => c['id']),
    ['nvr'],
    'only the other camera is left',
  );
  t.equal(await vaulted(setup, 'gate-1'), undefined, 'its credentials are gone from the vault');
  t.same(await vaulted(setup, 'nvr'), { token: 'nvr-token-1' }, 'the other camera keeps its token');
  t.equal(setup.camerasChanged, 3);
  t.equal((await postJson(setup.base, '/setup/cameras/gate-1/delete', {})).status, 404);

  // Added again without a password: the old secret must not come back.
  await postForm(setup.base, '/setup/cameras', { id: 'gate-1', vendor: 'vendor_a', mode: 'push' });
  t.equal(await vaulted(setup, 'gate-1'), undefined);
});

t.test('security: cross-site and body-less posts, non-LAN peers, and after the claim', async (t) => {
  const setup = await startSetup(t);
  await postForm(setup.base, '/setup/cameras', gate);
  const bare = await fetch(`${setup.base}/setup/cameras/gate-1/delete`, { method: 'POST' });
  t.equal(bare.status, 403, 'a POST with no body, no content type and no origin is refused');
  const crossSite = await postForm(setup.base, '/setup/cameras/gate-1/delete', {}, { origin: 'https://evil.example' });
  t.equal(crossSite.status, 403, 'a form post from another origin is refused');
  const crossEdit = await postForm(setup.base, '/setup/cameras/gate-1', { vendor: 'vendor_a', mode: 'push' }, { origin: 'https://evil.example' });
  t.equal(crossEdit.status, 403);
  t.equal((await tomlCameras(setup)).length, 1, 'the camera is still there');

  const outside = await startSetup(t, { addressOf: () => '203.0.113.9' });
  t.equal((await postJson(outside.base, '/setup/cameras/gate-1/delete', {})).status, 403, 'not from the LAN: 403');
  t.equal((await fetch(`${outside.base}/setup/cameras/gate-1/edit`)).status, 403);

  const claimed = await startSetup(t, { state: () => 'claimed' });
  t.equal((await postJson(claimed.base, '/setup/cameras/gate-1', { vendor: 'vendor_a', mode: 'push' })).status, 410);
  t.equal((await postJson(claimed.base, '/setup/cameras/gate-1/delete', {})).status, 410);
});
