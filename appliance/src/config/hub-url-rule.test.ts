/**
 * Plain http to a non-loopback hub is refused from every source of a hub URL
 * (docs/security.md "TLS by default"): the TOML layer, the hub-pushed layer as stored and as
 * a config_update validates it, and the setup page (setup/hub-url.test.ts).
 */
import t from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWithCredentials } from '../lifecycle/config-layers.ts';
import { hubUrlProblem } from './hub-url-rule.ts';
import { loadApplianceConfig, readEnvironment } from './load.ts';

const REFUSED = /invalid configuration at hub_url: plain http:\/\/ to 192\.168\.1\.10 is refused: the hub URL must use https:\/\//;

t.test('the rule', async (t) => {
  t.equal(hubUrlProblem('https://hub.example.com'), undefined);
  t.equal(hubUrlProblem('http://127.0.0.1:8443'), undefined, 'loopback: nothing crosses a network');
  t.equal(hubUrlProblem('http://localhost:8443'), undefined);
  t.equal(hubUrlProblem('http://[::1]:8443'), undefined);
  t.match(hubUrlProblem('http://hub.example.com'), /refused/);
  t.match(hubUrlProblem('http://127.0.0.1.example.com'), /refused/, 'a name that only starts like loopback');
  t.match(hubUrlProblem('ws://hub.example.com'), /https/);
});

t.test('the TOML layer: an http:// hub that is not loopback stops the start with the key named', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'appliance-hub-url-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = readEnvironment({ ALPR_DATA_DIR: dir });
  await writeFile(env.localConfigFile, 'hub_url = "http://192.168.1.10:8443"\n');
  await t.rejects(loadApplianceConfig(env), { name: 'ApplianceError', code: 'invalid_config', message: REFUSED });
  await writeFile(env.localConfigFile, 'hub_url = "https://192.168.1.10:8443"\n');
  t.equal((await loadApplianceConfig(env)).hub_url, 'https://192.168.1.10:8443', 'https: accepted');
  await writeFile(env.localConfigFile, 'hub_url = "http://127.0.0.1:8443"\n');
  t.equal((await loadApplianceConfig(env)).hub_url, 'http://127.0.0.1:8443', 'loopback http: accepted');
});

t.test('the hub-pushed layer: refused on disk and in a config_update', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'appliance-hub-url-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = readEnvironment({ ALPR_DATA_DIR: dir });
  await writeFile(env.centralConfigFile, JSON.stringify({ hub_url: 'http://192.168.1.10:8443' }));
  await t.rejects(loadApplianceConfig(env), { code: 'invalid_config', message: REFUSED });
  // What runConfigUpdate validates a pushed layer with before it applies anything.
  t.throws(() => resolveWithCredentials({ hub_url: 'http://192.168.1.10:8443' }, undefined, undefined), { code: 'invalid_config', message: REFUSED });
  t.throws(
    () => resolveWithCredentials({ hub_url: 'https://hub.example.com' }, { hub_url: 'http://192.168.1.10:8443' }, undefined),
    REFUSED,
    'a local override cannot downgrade a pushed https URL',
  );
});
