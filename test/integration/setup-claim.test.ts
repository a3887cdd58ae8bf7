import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { issueProvisioningToken } from '../../hub/src/collectors/provisioning.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { readCentralLayer } from '../../appliance/src/config/central-layer.ts';
import { loadConfigWithCredentials } from '../../appliance/src/lifecycle/config-layers.ts';
import { pendingCollector, startTestHub } from './hub-for-appliance.ts';
import { loadEnrollment } from '../../appliance/src/keystore/keystore.ts';
import { cameraCredentials } from '../../appliance/src/vault/credentials.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { SETUP_VAULT_DIR } from '../../appliance/src/setup/camera-store.ts';
import { postForm, postJson, startSetup } from '../../appliance/src/setup/setup.test-helper.ts';
import { CLAIM_SHORT_PATH } from '@alpr/shared/protocol/paths';

/**
 * The claim and provisioning paths against a real hub (createHubApp over a fresh database),
 * driven over HTTP as a browser would. One hub for the file: its own limiter allows 10
 * enrollment attempts a minute from 127.0.0.1, and this file makes fewer before the
 * hub-rate-limit test, which exhausts it on purpose.
 */
const hub = await startTestHub(t);
const GONE = { error: { code: 'gone', message: 'already claimed' } };
let firstDevice: { serial: string; claimCode: string } | undefined;

t.test('claim by form: enrollment stored, page becomes diagnostics, setup closed', async (t) => {
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub, { heartbeat_interval_seconds: 30 });
  const before = await (await fetch(`${setup.base}/`)).text();
  t.match(before, /not claimed/);
  t.match(before, /action="\/setup\/claim"/);
  t.match(before, /action="\/setup\/provision"/);
  t.match(before, /action="\/setup\/cameras"/);
  t.match(before, setup.serial, 'hardware id shown for the admin');

  // A camera added before the claim: its password must end up in the real vault.
  const added = await postForm(setup.base, '/setup/cameras', {
    id: 'gate-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.168.1.64',
    username: 'admin',
    password: 'pa55-word',
  });
  t.equal(added.status, 303);

  // Typed as a person would: lower case, no hyphens. parseClaimCode makes it canonical.
  const typed = pending.claimCode.toLowerCase().replace(/-/g, ' ');
  const res = await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: typed });
  t.equal(res.status, 303);
  t.equal(res.headers.get('location'), '/');

  const { enrollment, vault } = await loadEnrollment({ dataDir: setup.dataDir, identity: fixedIdentity(setup.serial) });
  t.equal(enrollment.collector_id, pending.collectorId);
  t.match(enrollment.api_key, /^alpr_/);
  t.equal(enrollment.hub_url, 'https://hub.example.test', 'the hub central_url is stored');
  const central = await readCentralLayer(setup.centralConfigFile);
  t.same(central?.config, { heartbeat_interval_seconds: 30 }, 'initial configuration recorded');
  t.equal(setup.claimed.length, 1, 'onClaimed called once');
  t.equal(setup.claimed[0]?.collectorId, pending.collectorId);
  t.equal(setup.claimed[0]?.keyPrefix, enrollment.api_key.slice(0, 10));
  t.same(cameraCredentials(vault, 'gate-1'), { username: 'admin', password: 'pa55-word' }, 'staged credentials moved into the vault');
  t.notOk(existsSync(join(setup.dataDir, SETUP_VAULT_DIR, 'vault.json')), 'setup vault deleted');
  const { config } = await loadConfigWithCredentials(setup, vault);
  t.equal(config.cameras[0]?.password, 'pa55-word', 'the runners get the camera with its password');

  const after = await (await fetch(`${setup.base}/`)).text();
  t.match(after, /read-only/);
  t.match(after, `${enrollment.api_key.slice(0, 10)}…`);
  t.notOk(after.includes(enrollment.api_key), 'the full key is never on the page');
  t.notOk(after.includes('<form'), 'no form once claimed');
  t.notOk(after.includes('pa55-word'));

  for (const [path, body] of [
    ['/setup/claim', { claim_code: pending.claimCode }],
    ['/setup/provision', { provisioning_token: 'prov_x' }],
    ['/setup/cameras', { id: 'x' }],
  ] as const) {
    const gone = await postJson(setup.base, path, body);
    t.equal(gone.status, 410, path);
    t.same(await gone.json(), GONE, path);
  }
  t.equal((await postForm(setup.base, '/setup/claim', { claim_code: pending.claimCode })).status, 410, 'form post too');
  t.notOk(JSON.stringify(setup.logs).includes(enrollment.api_key), 'the key is not logged');
  firstDevice = { serial: setup.serial, claimCode: pending.claimCode };
});

const refusedClaim = async (t: Test, setup: Awaited<ReturnType<typeof startSetup>>, code: string, status: number, message: RegExp): Promise<void> => {
  const res = await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: code });
  t.equal(res.status, status);
  const page = await res.text();
  t.match(page, message);
  t.match(page, `value="${code}"`, 'the typed code is kept');
  t.match(page, `value="${hub.base}"`, 'the hub URL is kept');
  t.equal(setup.claimed.length, 0);
  t.notOk(existsSync(join(setup.dataDir, 'credentials.enc')), 'nothing stored');
};

t.test('wrong code: the hub does not know it', async (t) => {
  const setup = await startSetup(t);
  await refusedClaim(t, setup, 'ALPR-2345-6789', 404, /does not know this claim code/);
  const html = await (await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: 'hello' })).text();
  t.match(html, /not a claim code/, 'malformed code refused before any hub call');
});

t.test('expired code', async (t) => {
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub);
  hub.ctx.clock.advance(49 * 3_600_000);
  await refusedClaim(t, setup, pending.claimCode, 410, /expired/);
});

t.test('code already used', async (t) => {
  const setup = await startSetup(t);
  if (!firstDevice) return t.fail('the happy path did not run');
  await refusedClaim(t, setup, firstDevice.claimCode, 410, /already used/);
});

t.test('hardware already registered to another collector', async (t) => {
  if (!firstDevice) return t.fail('the happy path did not run');
  const setup = await startSetup(t, { serial: firstDevice.serial });
  const pending = await pendingCollector(hub);
  await refusedClaim(t, setup, pending.claimCode, 409, /already registered to another collector/);
});

t.test('provisioning token (JSON)', async (t) => {
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub);
  const issued = await issueProvisioningToken(hub.ctx, SYSTEM_ACTOR, pending.collectorId);
  const bad = await postJson(setup.base, '/setup/provision', { hub_url: hub.base, provisioning_token: 'prov_short' });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { code: 'bad_request', message: /not a provisioning token/ } });
  const res = await postJson(setup.base, '/setup/provision', { hub_url: hub.base, provisioning_token: issued.token });
  t.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  const { enrollment } = await loadEnrollment({ dataDir: setup.dataDir, identity: fixedIdentity(setup.serial) });
  t.same(body, { claimed: true, collector_id: pending.collectorId, key_prefix: enrollment.api_key.slice(0, 10), hub_url: 'https://hub.example.test' });
  t.equal(setup.claimed.length, 1);
  const again = await postJson(setup.base, '/setup/provision', { hub_url: hub.base, provisioning_token: issued.token });
  t.equal(again.status, 410, 'closed after the provisioning');
});

t.test('provisioning token already used: the hub message on the page', async (t) => {
  const pending = await pendingCollector(hub);
  const issued = await issueProvisioningToken(hub.ctx, SYSTEM_ACTOR, pending.collectorId);
  const first = await startSetup(t);
  t.equal((await postForm(first.base, '/setup/provision', { hub_url: hub.base, provisioning_token: issued.token })).status, 303);
  const second = await startSetup(t);
  const res = await postForm(second.base, '/setup/provision', { hub_url: hub.base, provisioning_token: issued.token });
  t.equal(res.status, 410);
  t.match(await res.text(), /provisioning token was already used/);
});

t.test('hub unreachable', async (t) => {
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/claim', { hub_url: 'http://127.0.0.1:9', claim_code: 'ALPR-2345-6789' });
  t.equal(res.status, 502);
  t.match(await res.text(), /Cannot reach the hub at http:\/\/127\.0\.0\.1:9/);
  const plain = await postForm(setup.base, '/setup/claim', { hub_url: 'http://hub.example.com', claim_code: 'ALPR-2345-6789' });
  t.equal(plain.status, 400);
  t.match(await plain.text(), /must use https/);
});

t.test('hub rate limit: its 429 and wait shown on the page', async (t) => {
  // Exhaust the hub's 10-per-minute enrollment budget for 127.0.0.1 directly.
  for (let i = 0; i < 10; i++) await postJson(hub.base, CLAIM_SHORT_PATH, { claim_code: 'ALPR-2345-6789', hardware_id: 'x' });
  const setup = await startSetup(t);
  const res = await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: 'ALPR-2345-6789' });
  t.equal(res.status, 429);
  t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After passed on');
  t.match(await res.text(), /The hub refused: too many attempts from this network\. Try again in \d+ s\./);
  hub.ctx.clock.advance(60_000);
});

t.test('setup rate limit: 5 attempts a minute per address, then 429 with Retry-After', async (t) => {
  const setup = await startSetup(t);
  for (let i = 0; i < 5; i++) {
    const res = await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: 'nope' });
    t.equal(res.status, 400, `attempt ${i + 1} reaches the verb`);
  }
  const limited = await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: 'nope' });
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '12');
  t.match(await limited.text(), /Too many attempts/);
  t.equal((await postJson(setup.base, '/setup/provision', { provisioning_token: 'x' })).status, 429, 'claim and provision share the budget');
  setup.advance(12_000);
  t.equal((await postForm(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: 'nope' })).status, 400, 'a token refilled after 12 s');
});
