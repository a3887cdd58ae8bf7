import t from 'tap';
import type { ConfigTree } from '../config/merge.ts';
import { resolveConfig } from '../config/load.ts';
import { CAMERA_SECRET_KEYS, isSecretKey, PARKED_CAMERAS_KEY, scrubLocalConfig, type ScrubResult } from './scrub-config.ts';

t.test('isSecretKey: credentials and secret-looking names, not the settings beside them', async (t) => {
  const cases: [string, boolean][] = [
    ['username', true],
    ['password', true],
    ['token', true],
    ['pushSecret', true],
    ['sealed_credentials', true],
    ['api_key', true],
    ['apiKey', true],
    ['hub_api_key', true],
    ['private_key', true],
    ['smtp_pass', true],
    ['passphrase', true],
    ['client_secret', true],
    ['tokenHeader', false],
    ['host', false],
    ['pushSource', false],
    ['verifyTls', false],
    ['cameraType', false],
    ['port', false],
    ['disk_cap_bytes', false],
    ['accept_unknown_cameras', false],
  ];
  for (const [key, secret] of cases) t.equal(isSecretKey(key), secret, key);
  t.same([...CAMERA_SECRET_KEYS].sort(), ['password', 'pushSecret', 'sealed_credentials', 'token', 'username'], 'every field of the vault credential record');
});

const pull = { id: 'gate-1', vendor: 'vendor_a', mode: 'pull', host: '192.168.1.20', username: 'admin', password: 'pw', timezone: 'Europe/Oslo', channel: 2 };
const nvr = { id: 'nvr', vendor: 'vendor_b', mode: 'push', host: '192.168.1.30', token: 'tok', tokenHeader: 'x-api-key' };
const pushWithSecret = { id: 'lane', vendor: 'vendor_a', mode: 'push', host: '192.168.1.40', pushSecret: 'sixteen-chars-or-more' };
const plainPush = { id: 'exit', vendor: 'vendor_a', mode: 'push', host: '192.168.1.50', mac: '00a1b2c3d4e5' };
/** Added on the setup page: its credentials were in the vault, which the wipe deletes. */
const vaultedPull = { id: 'side', vendor: 'vendor_a', mode: 'pull', host: '192.168.1.60' };
const settings = { setup: { host: '0.0.0.0', port: 8080 }, uplink: { window_seconds: 5 }, buffer: { retention_days: 7 }, log_level: 'info' };
const without = (tree: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(tree).filter(([k]) => !keys.includes(k)));

t.test('scrubLocalConfig: what a wipe leaves of the local TOML', async (t) => {
  const cases: [string, ConfigTree, ScrubResult][] = [
    ['no secret: unchanged', { ...settings, cameras: [plainPush] }, { tree: { ...settings, cameras: [plainPush] }, removed: [], parked: [] }],
    ['no cameras at all', { setup: { port: 8080 } }, { tree: { setup: { port: 8080 } }, removed: [], parked: [] }],
    [
      'camera credentials removed, those cameras parked, the rest kept',
      { ...settings, cameras: [pull, plainPush, nvr, pushWithSecret] },
      {
        tree: {
          ...settings,
          cameras: [plainPush],
          [PARKED_CAMERAS_KEY]: [without(pull, 'username', 'password'), without(nvr, 'token'), without(pushWithSecret, 'pushSecret')],
        },
        removed: ['cameras[gate-1].username', 'cameras[gate-1].password', 'cameras[nvr].token', 'cameras[lane].pushSecret'],
        parked: ['gate-1', 'nvr', 'lane'],
      },
    ],
    [
      'a camera whose credentials were in the vault is parked too (it would stop the start)',
      { cameras: [vaultedPull, plainPush] },
      { tree: { cameras: [plainPush], [PARKED_CAMERAS_KEY]: [vaultedPull] }, removed: [], parked: ['side'] },
    ],
    [
      'a local override of a hub camera is parked: the central layer that completed it is wiped',
      { cameras: [{ id: 'hub-cam', host: '10.0.0.5' }, plainPush] },
      { tree: { cameras: [plainPush], [PARKED_CAMERAS_KEY]: [{ id: 'hub-cam', host: '10.0.0.5' }] }, removed: [], parked: ['hub-cam'] },
    ],
    [
      'sealed credentials from a hub copied into the TOML',
      { cameras: [{ ...plainPush, sealed_credentials: 'c2VhbGVk' }] },
      { tree: { cameras: [], [PARKED_CAMERAS_KEY]: [plainPush] }, removed: ['cameras[exit].sealed_credentials'], parked: ['exit'] },
    ],
    [
      'secrets outside the cameras, and a URL with a login',
      { hub_url: 'https://box:s3cret@hub.example.org/base', api_key: 'alpr_xxx', mqtt: { host: 'broker', password: 'x', client_secret: 'y' } },
      {
        tree: { hub_url: 'https://hub.example.org/base', mqtt: { host: 'broker' } },
        removed: ['hub_url (user:password)', 'api_key', 'mqtt.password', 'mqtt.client_secret'],
        parked: [],
      },
    ],
    [
      'idempotent: already parked cameras stay parked, scrubbed again',
      { cameras: [], [PARKED_CAMERAS_KEY]: [{ ...vaultedPull, password: 'typed-in-later' }] },
      { tree: { cameras: [], [PARKED_CAMERAS_KEY]: [vaultedPull] }, removed: [`${PARKED_CAMERAS_KEY}[0].password`], parked: [] },
    ],
    [
      'a camera without an id is named by its place',
      { cameras: [{ vendor: 'vendor_a', mode: 'push', token: 'x' }] },
      { tree: { cameras: [], [PARKED_CAMERAS_KEY]: [{ vendor: 'vendor_a', mode: 'push' }] }, removed: ['cameras[0].token'], parked: ['0'] },
    ],
  ];
  for (const [name, input, expected] of cases) t.same(scrubLocalConfig(input), expected, name);
});

t.test('the scrubbed layer still makes a configuration the appliance starts with', async (t) => {
  const input: ConfigTree = { ...settings, cameras: [pull, plainPush, nvr, pushWithSecret, vaultedPull, { id: 'hub-cam', host: '10.0.0.5' }] };
  t.throws(
    () => resolveConfig(undefined, { ...input, cameras: [without(pull, 'username', 'password')] }),
    /username/,
    'a pull camera without its login would stop the start',
  );
  const { tree } = scrubLocalConfig(input);
  const config = resolveConfig(undefined, tree);
  t.same(
    config.cameras.map((c) => c.id),
    ['exit'],
  );
  t.match(config, { setup: { host: '0.0.0.0', port: 8080 }, uplink: { window_seconds: 5 }, log_level: 'info' });
  t.same(scrubLocalConfig(tree).tree, tree, 'a second wipe changes nothing more');
});
