import t from 'tap';
import type { Test } from 'tap';
import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import TOML from '@iarna/toml';
import { closeBuffer, insertDetection, openBuffer } from '../buffer/index.ts';
import { memoryLog, sampleDetection } from '../buffer/buffer.test-helper.ts';
import { readEnvironment } from '../config/load.ts';
import { logFileOf } from '../log-file.ts';
import { putCameraCredentials } from '../vault/credentials.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { createVault, SETUP_VAULT_DIR } from '../vault/vault.ts';
import { loadConfigWithCredentials } from './config-layers.ts';
import { PARKED_CAMERAS_KEY } from './scrub-config.ts';
import { runWipe, type WipeDeps } from './wipe.ts';

/**
 * The real wipe over a real data folder (vault, setup vault, SQLite buffer in WAL mode,
 * log file, central layer, a leftover temp file, the local TOML with camera secrets in
 * clear), then every byte left anywhere under the folder is searched for the secrets.
 */
const PASSWORD = 'hunter2-wipe-test';
const SECRETS = [PASSWORD, `${PASSWORD}-token`, `${PASSWORD}-push-secret`, 'installer-admin'];

const TOML_TEXT = `# Installed 2026-02-01. Old password was ${PASSWORD} (changed).
hub_url = "https://hub.example.org"
heartbeat_interval_seconds = 30

[setup]
host = "0.0.0.0"
port = 8080

[uplink]
window_seconds = 5

[[cameras]]
id = "gate-1"
name = "Gate"
vendor = "vendor_a"
mode = "pull"
host = "192.168.1.20"
username = "installer-admin"
password = "${PASSWORD}"
timezone = "Europe/Oslo"

[[cameras]]
id = "nvr"
vendor = "vendor_b"
mode = "push"
host = "192.168.1.30"
token = "${PASSWORD}-token"

[[cameras]]
id = "lane-2"
vendor = "vendor_a"
mode = "push"
host = "192.168.1.40"
pushSecret = "${PASSWORD}-push-secret"

[[cameras]]
id = "exit"
vendor = "vendor_a"
mode = "push"
host = "192.168.1.50"
mac = "00:a1:b2:c3:d4:e5"
`;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out.sort();
}

async function tempFolder(t: Test, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Lines {
  lines: string[];
}

function wipeDeps(dataDir: string, localConfigFile: string, stop: () => Promise<void>): WipeDeps & Lines & { restarted: number } {
  const lines: string[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push(JSON.stringify({ level, ...obj, msg }));
  const deps = {
    dataDir,
    localConfigFile,
    centralConfigFile: join(dataDir, 'central-config.json'),
    stop,
    restarted: 0,
    restart: async () => {
      deps.restarted += 1;
    },
    log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    lines,
  };
  return deps;
}

t.test('after a wipe no file under the data folder holds a camera credential; the settings stay and start', async (t) => {
  const dataDir = await tempFolder(t, 'alpr-wipe-');
  const outside = await tempFolder(t, 'alpr-wipe-outside-');
  const identity = fixedIdentity('serial:WIPE-TEST-1');
  const localConfigFile = join(dataDir, 'appliance.toml');
  await writeFile(localConfigFile, TOML_TEXT);
  // A second name for the TOML's inode outside the data dir: shows its old bytes were overwritten, not only unlinked.
  const oldInode = join(outside, 'appliance.toml.link');
  await link(localConfigFile, oldInode);

  const vault = await createVault({ dataDir, identity }, { collectorId: '7d2f3c5e-1111-4222-8333-944455556666', now: new Date() });
  await putCameraCredentials(vault, 'side', { username: 'installer-admin', password: PASSWORD });
  await mkdir(join(dataDir, SETUP_VAULT_DIR));
  const staging = await createVault({ dataDir: join(dataDir, SETUP_VAULT_DIR), identity }, { collectorId: 'unclaimed', now: new Date() });
  await putCameraCredentials(staging, 'side', { password: PASSWORD });
  const buffer = openBuffer({ file: join(dataDir, 'buffer.sqlite'), clock: { now: () => new Date() }, log: memoryLog() });
  insertDetection(buffer, sampleDetection({ plate: 'AB123CD' }));
  buffer.sqlite.exec('CREATE TABLE leak (v TEXT)');
  buffer.sqlite.prepare('INSERT INTO leak VALUES (?)').run(`camera said: bad password ${PASSWORD}`);
  await mkdir(join(dataDir, 'logs'));
  await writeFile(logFileOf(dataDir), `{"msg":"camera login failed","password":"${PASSWORD}"}\n`);
  await writeFile(join(dataDir, 'central-config.json'), JSON.stringify({ config_version: 3, config: { cameras: [{ id: 'c', password: PASSWORD }] } }));
  await writeFile(join(dataDir, '.appliance.toml.0badf00d.tmp'), TOML_TEXT);
  const before = await filesUnder(dataDir);
  t.ok(before.length >= 8, `a full data folder to start with (${before.length} files)`);

  const deps = wipeDeps(dataDir, localConfigFile, async () => closeBuffer(buffer));
  const { ack, afterAck } = await runWipe(deps);
  t.match(ack, { status: 'success', detail: /^wiped \d+ files; restarting unclaimed$/ });
  await afterAck();
  t.equal(deps.restarted, 1);

  const left = await filesUnder(dataDir);
  t.same(left, [localConfigFile], 'only the installation settings stay');
  for (const file of [...left, oldInode]) {
    const bytes = await readFile(file);
    for (const secret of SECRETS) t.notOk(bytes.includes(Buffer.from(secret)), `${file}: no "${secret}"`);
  }
  const old = await readFile(oldInode);
  t.ok(old.length > 0 && old.every((b) => b === 0), 'the old TOML contents were overwritten (zeros last) before the unlink');
  t.notOk(deps.lines.join('\n').includes(PASSWORD), 'the wipe log names keys, never values');
  t.match(
    deps.lines.join('\n'),
    /"removed":\["cameras\[gate-1\]\.username","cameras\[gate-1\]\.password","cameras\[nvr\]\.token","cameras\[lane-2\]\.pushSecret"\]/,
  );

  // What comes back up: the unclaimed start reads the layers with no vault.
  const environment = readEnvironment({ ALPR_DATA_DIR: dataDir });
  const { config } = await loadConfigWithCredentials(environment, undefined);
  t.match(config, {
    hub_url: 'https://hub.example.org',
    heartbeat_interval_seconds: 30,
    setup: { host: '0.0.0.0', port: 8080 },
    uplink: { window_seconds: 5 },
  });
  t.same(
    config.cameras.map((c) => c.id),
    ['exit'],
    'the camera that needs no credential keeps running',
  );
  const parked = (TOML.parse(await readFile(localConfigFile, 'utf8')) as Record<string, unknown>)[PARKED_CAMERAS_KEY];
  t.match(parked, [
    { id: 'gate-1', name: 'Gate', host: '192.168.1.20', timezone: 'Europe/Oslo' },
    { id: 'nvr', host: '192.168.1.30' },
    { id: 'lane-2', host: '192.168.1.40' },
  ]);
});

t.test('a symlinked TOML is scrubbed where it lives; an unreadable one is deleted whole', async (t) => {
  const dataDir = await tempFolder(t, 'alpr-wipe-link-');
  const etc = await tempFolder(t, 'alpr-wipe-etc-');
  const real = join(etc, 'appliance.toml');
  await writeFile(real, TOML_TEXT);
  const localConfigFile = join(dataDir, 'appliance.toml');
  await symlink(real, localConfigFile);
  const linked = wipeDeps(dataDir, localConfigFile, async () => undefined);
  t.match((await runWipe(linked)).ack, { status: 'success' });
  const text = await readFile(real, 'utf8');
  for (const secret of SECRETS) t.notOk(text.includes(secret), `the real file: no "${secret}"`);
  t.same(await readdir(etc), ['appliance.toml'], 'no leftover beside it');
  t.match(text, /port = 8_?080/);

  const broken = join(dataDir, 'broken.toml');
  await writeFile(broken, `[[cameras]\npassword = "${PASSWORD}"\n`);
  const deps = wipeDeps(dataDir, broken, async () => undefined);
  t.match((await runWipe(deps)).ack, { status: 'success' });
  t.notOk((await readdir(dataDir)).includes('broken.toml'), 'no way to tell its settings from its secrets: deleted');
  t.match(deps.lines.join('\n'), /"outcome":"deleted".*not TOML/);
});

t.test('no local TOML: nothing to scrub, the wipe still succeeds', async (t) => {
  const dataDir = await tempFolder(t, 'alpr-wipe-none-');
  await writeFile(join(dataDir, 'vault.json'), '{}');
  const deps = wipeDeps(dataDir, join(dataDir, 'appliance.toml'), async () => undefined);
  t.match((await runWipe(deps)).ack, { status: 'success', detail: 'wiped 1 files; restarting unclaimed' });
  t.same(await readdir(dataDir), []);
});
