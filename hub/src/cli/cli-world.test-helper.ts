/**
 * The admin command line as an admin runs it, for tests, over a real database
 * (cli-database.test-helper.ts picks PostgreSQL or a PGlite folder), with secrets on stdin
 * and the same database opened by the test between runs.
 *
 * A run calls `runCli` (run-cli.ts) in the test's own process with the world's environment
 * (never the test's process.env), stdout and stderr captured as strings: a child process per
 * command (node, tsx compiling the CLI, the database opened afresh) cost seconds each, and
 * minutes per file on a loaded 2-core machine. `cliProcess` keeps the real thing, a
 * `node --import tsx hub/src/cli/main.ts` child per run over the same database, for the
 * tests that cover the entry point itself (main.test.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { TestHandle } from '../db/database.test-helper.ts';
import { openDatabase } from '../db/client.ts';
import type { CollectorContext } from '../collectors/context.ts';
import { loadHubConfig, type HubConfig } from '../platform/config/hub-config.ts';
import { systemClock } from '../platform/clock.ts';
import { createLog } from '../platform/log.ts';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';
import type { CliIo } from './cli-io.ts';
import { runCli } from './run-cli.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliWorldOptions {
  /** Variables beside the defaults (HUB_HOST, say); the database's own always win. */
  env?: Record<string, string>;
}

export interface CliWorld {
  config: HubConfig;
  /** The hub's data folder (HUB_DATA_DIR), empty until a run or the test writes to it. */
  dataDir: string;
  /** One CLI run in this process: exit code, stdout, stderr. */
  cli(args: string[], stdin?: string): Promise<CliRun>;
  /** The same run as a child process running main.ts, as an admin's shell runs it; one that outlives 60 s is killed (code -1). */
  cliProcess(args: string[], stdin?: string): Promise<CliRun>;
  /** The CLI's database, opened by the test between CLI runs (PGlite allows one handle per folder). */
  withHub<T>(work: (ctx: CollectorContext) => Promise<T>): Promise<T>;
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export async function cliWorld(t: TestHandle, name: string, options: CliWorldOptions = {}): Promise<CliWorld> {
  const work = await mkdtemp(join(tmpdir(), `alpr-${name}-`));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const dataDir = join(work, 'hub');
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HUB_PUBLIC_URL: 'https://hub.example.test',
    // Credentials are sealed to a key derived from the hub secret: the CLI and the test must share it.
    HUB_SESSION_SECRET: 'camera-cli-test-secret-0123456789abcdef',
    HUB_DATA_DIR: dataDir,
    ...options.env,
    ...(await cliDatabaseEnv(t, process.env, work)),
  };
  const config = loadHubConfig(env);
  return {
    config,
    dataDir,
    cli: (args, stdin = '') => cliInProcess(env, args, stdin),
    cliProcess: (args, stdin = '') => cliProcess(env, args, stdin),
    async withHub(work) {
      const log = createLog('silent');
      const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 1 });
      try {
        return await work({ db, clock: systemClock, log, config });
      } finally {
        await db.close();
      }
    },
  };
}

/**
 * `runCli` here, its log on the captured stderr (tap reads this process's stdout as TAP). A
 * throw ends as the real process would end it: the error on stderr, exit code 1. Exported for
 * the commands that open no database (`export verify`), which need no world.
 */
export async function cliInProcess(env: Record<string, string>, args: string[], stdin: string): Promise<CliRun> {
  const run: CliRun = { code: 0, stdout: '', stderr: '' };
  const io: CliIo = {
    env,
    stdout: (text) => void (run.stdout += text),
    stderr: (text) => void (run.stderr += text),
    stdin: () => Readable.from(stdin === '' ? [] : [Buffer.from(stdin)]),
    stdinIsTty: false,
  };
  try {
    run.code = await runCli(args, io);
  } catch (err) {
    run.stderr += `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
    run.code = 1;
  }
  return run;
}

function cliProcess(env: Record<string, string>, args: string[], stdin: string): Promise<CliRun> {
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
