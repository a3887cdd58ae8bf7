import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { openEscrow } from '../collectors/cameras/credential-escrow.ts';
import { systemClock } from '../platform/clock.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import type { CollectorContext } from '../collectors/context.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { cameras } from '../db/schema/cameras.ts';
import { createLog } from '../platform/log.ts';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';

/**
 * `camera ...` and `collector suspend|resume|replace|replace-cancel` run as an admin runs
 * them: the CLI as a child process over a real database, secrets piped on stdin.
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const work = await mkdtemp(join(tmpdir(), 'alpr-camera-cli-'));
t.teardown(() => rm(work, { recursive: true, force: true }));

const env: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  HUB_PUBLIC_URL: 'https://hub.example.test',
  // Credentials are sealed to a key derived from the hub secret: the CLI and this test must share it.
  HUB_SESSION_SECRET: 'camera-cli-test-secret-0123456789abcdef',
  HUB_DATA_DIR: join(work, 'hub'),
  ...(await cliDatabaseEnv(t, process.env, work)),
};
const config = loadHubConfig(env);

/** The CLI's database, opened by this process between CLI runs (PGlite allows one process at a time). */
async function withHub<T>(work: (ctx: CollectorContext) => Promise<T>): Promise<T> {
  const log = createLog('silent');
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 1 });
  try {
    return await work({ db, clock: systemClock, log, config });
  } finally {
    await db.close();
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'hub/src/cli/main.ts', ...args],
      { cwd: repoRoot, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error && typeof error.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin);
  });
}

const json = (run: Run): Record<string, unknown> => JSON.parse(run.stdout) as Record<string, unknown>;

const collectorId = (await withHub((ctx) => claimedCollector(ctx))).collectorId;

t.test('cameras added, listed, edited, disabled and removed from the command line', async (t) => {
  const added = await cli(
    [
      'camera',
      'add',
      collectorId,
      '--name',
      'Gate in',
      '--vendor',
      'vendor_a',
      '--mode',
      'pull',
      '--host',
      '10.0.0.5',
      '--port',
      '8080',
      '--username',
      'admin',
      '--password-stdin',
      '--json',
    ],
    'hunter2-cli\n',
  );
  t.equal(added.code, 0, added.stderr);
  const gate = json(added);
  t.match(gate, { name: 'Gate in', vendor: 'vendor_a', mode: 'pull', host: '10.0.0.5', port: 8080, username: 'admin', has_credentials: true, enabled: true });
  t.match(gate, { config_version: 2, command_id: /^[0-9a-f-]{36}$/ }, 'pushed to the running collector');
  t.notMatch(added.stdout + added.stderr, /hunter2/, 'the password is not printed back');
  t.notOk('password' in gate, 'nor named');
  const sealed = await withHub(
    async (ctx) =>
      (
        await ctx.db.db
          .select()
          .from(cameras)
          .where(eq(cameras.id, String(gate['id'])))
      )[0]?.escrowedCredentials,
  );
  t.ok(sealed, 'credentials stored sealed');
  if (sealed) t.same(openEscrow(config, sealed), { username: 'admin', password: 'hunter2-cli' }, "the piped password, less the shell's newline");

  const protect = await cli(
    [
      'camera',
      'add',
      collectorId,
      '--name',
      'Yard',
      '--vendor',
      'vendor_b',
      '--mode',
      'pull',
      '--host',
      'console.local',
      '--camera-ids',
      'cam1, cam2',
      '--token-stdin',
      '--json',
    ],
    'api-key-secret',
  );
  t.equal(protect.code, 0, protect.stderr);
  t.match(json(protect), { vendor: 'vendor_b', port: 443, camera_ids: ['cam1', 'cam2'], has_credentials: true });
  const pushed = await cli([
    'camera',
    'add',
    collectorId,
    '--name',
    'Exit lane',
    '--vendor',
    'vendor_a',
    '--mode',
    'push',
    '--timezone',
    'Europe/Berlin',
    '--disabled',
  ]);
  t.equal(pushed.code, 0, pushed.stderr);
  t.match(pushed.stdout, /name:\s+Exit lane/, 'text output by default');
  t.match(pushed.stdout, /has_credentials:\s+false/);
  t.match(pushed.stdout, /enabled:\s+false/);

  const listed = await cli(['camera', 'list', collectorId, '--json']);
  t.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
  t.match(rows, [
    { name: 'Gate in', address: '10.0.0.5:8080', has_credentials: true, last_outcome: null },
    { name: 'Yard', address: 'console.local:443' },
    { name: 'Exit lane', address: null, enabled: false, has_credentials: false },
  ]);
  t.notMatch(listed.stdout, /hunter2|api-key-secret/, 'no secret in the list');
  const table = await cli(['camera', 'list', collectorId]);
  t.match(table.stdout, /^id\s+name\s+vendor\s+mode\s+address/, 'a table for people');
  t.match(table.stdout, /Gate in\s+vendor_a\s+pull\s+10\.0\.0\.5:8080\s+true\s+true/);

  const id = String(gate['id']);
  const renamed = await cli(['camera', 'edit', collectorId, id, '--username', 'operator']);
  t.equal(renamed.code, 2, 'a new username without its password');
  t.match(renamed.stderr, /^--password-stdin: enter the credentials again when the username, host or vendor changes/);
  const relogged = await cli(['camera', 'edit', collectorId, id, '--username', 'operator', '--password-stdin', '--json'], 'new-pass\n');
  t.equal(relogged.code, 0, relogged.stderr);
  t.match(json(relogged), { username: 'operator', has_credentials: true, config_version: 5 });
  const moved = await cli(['camera', 'edit', collectorId, id, '--port', '8443', '--timezone', 'Europe/London', '--json']);
  t.match(json(moved), { port: 8443, timezone: 'Europe/London', has_credentials: true }, 'an edit without a secret keeps the stored one');

  t.match(json(await cli(['camera', 'disable', collectorId, id, '--json'])), { enabled: false });
  t.match(json(await cli(['camera', 'enable', collectorId, id, '--json'])), { enabled: true });
  const removed = await cli(['camera', 'remove', collectorId, id, '--json']);
  t.match(json(removed), { camera_id: id, name: 'Gate in', removed: true });
  const after = JSON.parse((await cli(['camera', 'list', collectorId, '--json'])).stdout) as { name: string }[];
  t.same(
    after.map((c) => c.name),
    ['Yard', 'Exit lane'],
  );
  const again = await cli(['camera', 'remove', collectorId, id]);
  t.equal(again.code, 1);
  t.match(again.stderr, /error \(not_found\): no such camera/);
  const nobody = await cli(['camera', 'list', '7d4c1c5e-0000-4000-8000-000000000000']);
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, /no such collector/);
});

t.test('camera mistakes are refused in one line, exit 2, before the database', async (t) => {
  const base = ['camera', 'add', collectorId, '--name', 'Bad'];
  const cases: Array<{ args: string[]; stdin?: string; error: RegExp; why: string }> = [
    {
      args: [...base, '--vendor', 'acme', '--mode', 'pull'],
      error: /^--vendor must be vendor_a \(ISAPI camera or NVR, Digest login\) or vendor_b/,
      why: 'a bad vendor',
    },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'poll'], error: /^--mode must be pull/, why: 'a bad mode' },
    { args: ['camera', 'add', collectorId, '--vendor', 'vendor_a', '--mode', 'push'], error: /^--name is required/, why: 'no name' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password', 'hunter2'],
      error: /^--password is not accepted on the command line \(ps and the shell history would show it\): pipe it in with --password-stdin/,
      why: 'a password on argv',
    },
    { args: [...base, '--vendor', 'vendor_b', '--mode', 'pull', '--host', 'h', '--token=hunter2'], error: /^--token is not accepted/, why: 'a token on argv' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u'],
      error: /^--password-stdin: an ISAPI camera polled by the collector needs its username and password/,
      why: 'a pull camera without its password',
    },
    { args: [...base, '--vendor', 'vendor_b', '--mode', 'pull', '--token-stdin'], stdin: 't', error: /^--host: required/, why: 'a console without its host' },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--port', '70000'], error: /^--port: .*65535/, why: 'a port out of range' },
    { args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--port', 'http'], error: /^--port must be a number/, why: 'a port that is no number' },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'push', '--timezone', 'Mars/Olympus'],
      error: /^--timezone: not an IANA time zone/,
      why: 'an unknown zone',
    },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password-stdin', '--token-stdin'],
      error: /^give --password-stdin or --token-stdin, not both/,
      why: 'two secrets on one stdin',
    },
    {
      args: [...base, '--vendor', 'vendor_a', '--mode', 'pull', '--host', 'h', '--username', 'u', '--password-stdin'],
      stdin: '\n',
      error: /^--password-stdin: nothing was read/,
      why: 'an empty stdin',
    },
    { args: ['camera', 'edit', collectorId], error: /^missing camera id/, why: 'an edit without its camera' },
    { args: ['camera', 'edit', collectorId, '7d4c1c5e-0000-4000-8000-000000000000'], error: /^nothing to change/, why: 'an edit without a change' },
    { args: ['camera', 'rename', collectorId], error: /^unknown command: camera rename/, why: 'an unknown verb' },
  ];
  // None of these opens the database: run three at a time (about 1.5 s of start-up each on a
  // quiet machine). All sixteen at once took over a minute each on a loaded 2-core CI box and
  // hit the child timeout.
  const runs: Run[] = [];
  for (let i = 0; i < cases.length; i += 3) {
    runs.push(...(await Promise.all(cases.slice(i, i + 3).map((c) => cli(c.args, c.stdin)))));
  }
  for (const [i, c] of cases.entries()) {
    const run = runs[i] ?? { code: -1, stdout: '', stderr: 'not run' };
    t.equal(run.code, 2, c.why);
    t.match(run.stderr, c.error, c.why);
    t.notMatch(run.stderr, /hunter2/, `${c.why}: no secret echoed`);
  }
  const list = JSON.parse((await cli(['camera', 'list', collectorId, '--json'])).stdout) as { name: string }[];
  t.notOk(
    list.some((c) => c.name === 'Bad'),
    'nothing was added',
  );
});

t.test('suspend, resume, replace and cancel a replacement from the command line', async (t) => {
  const suspended = await cli(['collector', 'suspend', collectorId, '--reason', 'roadworks', '--json']);
  t.equal(suspended.code, 0, suspended.stderr);
  t.match(json(suspended), { collector_id: collectorId, status: 'disabled', reason: 'roadworks', suspended_at: /^\d{4}-\d\d-\d\dT/ });
  t.match(json(await cli(['collector', 'status', collectorId, '--json'])), { status: 'disabled' });
  const twice = await cli(['collector', 'suspend', collectorId]);
  t.equal(twice.code, 1);
  t.match(twice.stderr, /error \(conflict\): collector is already suspended/);
  const resumed = await cli(['collector', 'resume', collectorId, '--json']);
  t.equal(resumed.code, 0, resumed.stderr);
  t.match(json(resumed), { status: 'active', suspended_seconds: Number });
  t.equal((await cli(['collector', 'resume', collectorId])).code, 1, 'an active collector cannot be resumed');
  t.equal((await cli(['collector', 'suspend', collectorId, '--reason', '  '])).code, 2, 'an empty reason');

  const replace = await cli(['collector', 'replace', collectorId, '--json']);
  t.equal(replace.code, 0, replace.stderr);
  const issued = json(replace);
  t.match(issued, { collector_id: collectorId, pending_replacement: true, claim_code: /^ALPR-[A-Z2-9]{4}-[A-Z2-9]{4}$/, claim_code_expires_at: /^\d{4}-/ });
  t.ok(Date.parse(String(issued['claim_code_expires_at'])) > Date.now() + 47 * 3_600_000, 'the claim code lasts 48 hours');
  const cancelled = await cli(['collector', 'replace-cancel', collectorId]);
  t.equal(cancelled.code, 0, cancelled.stderr);
  t.match(cancelled.stdout, /pending_replacement:\s+false/);
  const notPending = await cli(['collector', 'replace-cancel', collectorId]);
  t.equal(notPending.code, 1);
  t.match(notPending.stderr, /not marked for replacement/);

  const created = json(await cli(['collector', 'create', '--site-name', 'Not yet claimed', '--json']));
  const pending = await cli(['collector', 'suspend', String(created['collector_id'])]);
  t.equal(pending.code, 1);
  t.match(pending.stderr, /collector is pending: only an active collector can be suspended/);
  t.equal((await cli(['collector', 'replace'])).code, 2, 'no collector id');
});
