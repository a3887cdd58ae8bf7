import t from 'tap';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApplianceConfig, readEnvironment, resolveConfig } from './load.ts';

t.test('defaults alone are a valid configuration', async (t) => {
  const config = resolveConfig(undefined, undefined);
  t.equal(config.setup.port, 8080);
  t.equal(config.heartbeat_interval_seconds, 60);
  t.same(config.cameras, []);
  t.equal(config.uplink.max_batch_detections, 50);
});

t.test('central then local TOML; local wins; invalid values named', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'appliance-config-'));
  const env = readEnvironment({ ALPR_DATA_DIR: dir });
  await writeFile(env.centralConfigFile, JSON.stringify({ heartbeat_interval_seconds: 30, hub_url: 'http://127.0.0.1:9', uplink: { window_seconds: 5 } }));
  await writeFile(
    env.localConfigFile,
    [
      'heartbeat_interval_seconds = 15',
      '[[cameras]]',
      'id = "gate"',
      'vendor = "vendor_a"',
      'mode = "push"',
      'mac = "00:11:22:33:44:55"',
      'timezone = "Europe/Berlin"',
    ].join('\n'),
  );
  const config = await loadApplianceConfig(env);
  t.equal(config.heartbeat_interval_seconds, 15);
  t.equal(config.uplink.window_seconds, 5);
  t.equal(config.hub_url, 'http://127.0.0.1:9');
  t.equal(config.cameras[0]?.mac, '001122334455');
  await writeFile(env.localConfigFile, 'heartbeat_interval_seconds = "often"');
  await t.rejects(loadApplianceConfig(env), { name: 'ApplianceError', code: 'invalid_config' });
  await writeFile(env.localConfigFile, 'this is = = not toml');
  await t.rejects(loadApplianceConfig(env), /appliance\.toml/);
});
