import t from 'tap';
import { loadEnrollment } from '../../appliance/src/keystore/keystore.ts';
import { pendingCollector, startTestHub } from './hub-for-appliance.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { postJson, startSetup } from '../../appliance/src/setup/setup.test-helper.ts';

/**
 * Issue 10 section 3: the claim response's central_url is held to the same rule as a typed
 * hub URL. A hub announcing plain http on a remote address is not followed: the device keeps
 * the (checked) URL the installer typed, so its key never travels without TLS.
 */
const hub = await startTestHub(t);

t.test('a plain-http central_url to a remote host is refused; the typed URL is kept', async (t) => {
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub, {});
  const original = hub.ctx.config.publicUrl;
  (hub.ctx.config as { publicUrl: string }).publicUrl = 'http://hub.example.test:8443';
  t.teardown(() => {
    (hub.ctx.config as { publicUrl: string }).publicUrl = original;
  });
  const res = await postJson(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: pending.claimCode });
  t.equal(res.status, 200);
  const { enrollment } = await loadEnrollment({ dataDir: setup.dataDir, identity: fixedIdentity(setup.serial) });
  t.equal(enrollment.hub_url, hub.base, 'kept the loopback URL typed on the setup page, not http://hub.example.test');
});

t.test('an https central_url is followed', async (t) => {
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub, {});
  const res = await postJson(setup.base, '/setup/claim', { hub_url: hub.base, claim_code: pending.claimCode });
  t.equal(res.status, 200);
  const { enrollment } = await loadEnrollment({ dataDir: setup.dataDir, identity: fixedIdentity(setup.serial) });
  t.equal(enrollment.hub_url, 'https://hub.example.test');
});
