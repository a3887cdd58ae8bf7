import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const work = await mkdtemp(join(tmpdir(), 'alpr-cli-'));
t.teardown(() => rm(work, { recursive: true, force: true }));

// Postgres (a fresh database by URL), PGlite locally, a failure under CI without DATABASE_URL.
const env: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  HUB_PUBLIC_URL: 'https://hub.example.test',
  ...(await cliDatabaseEnv(t, process.env, work)),
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'hub/src/cli/main.ts', ...args], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : error ? -1 : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

t.test('create, configure, inspect and decommission a collector from the command line', async (t) => {
  const created = await cli('collector', 'create', '--site-name', 'North gate', '--site-address', '1 Main St', '--lat', '51.5', '--lon', '-0.12', '--json');
  t.equal(created.code, 0, created.stderr);
  const { collector_id: id, claim_code: code } = JSON.parse(created.stdout) as { collector_id: string; claim_code: string };
  t.match(code, /^ALPR-[A-Z2-9]{4}-[A-Z2-9]{4}$/);

  const config = join(work, 'config.json');
  await writeFile(config, JSON.stringify({ heartbeat_interval_seconds: 30 }));
  const configured = await cli('collector', 'config', id, '--file', config);
  t.equal(configured.code, 0, configured.stderr);
  t.match(configured.stdout, /config_version:\s+2/);

  const status = await cli('collector', 'status', id, '--json');
  t.match(JSON.parse(status.stdout), {
    id,
    site_name: 'North gate',
    status: 'pending',
    connectivity: 'offline',
    config_version: 2,
    heartbeat_interval_seconds: 30,
  });

  const rotate = await cli('collector', 'rotate-key', id);
  t.equal(rotate.code, 1, 'a pending collector has no key to rotate');
  t.match(rotate.stderr, /error \(conflict\): collector is pending/);

  const gone = await cli('collector', 'decommission', id);
  t.equal(gone.code, 0, gone.stderr);
  const list = await cli('collector', 'list');
  t.match(list.stdout, new RegExp(`${id}\\s+North gate\\s+decommissioned`));
});

t.test('usage mistakes exit 2 without touching the database', async (t) => {
  const missing = await cli('collector', 'create');
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--site-name is required/);
  const unknown = await cli('collector', 'frobnicate');
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command/);
});
