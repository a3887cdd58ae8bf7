/**
 * The admin command line as an admin runs it, for tests: the CLI as a child process over a
 * real database (cli-database.test-helper.ts picks PostgreSQL or a PGlite folder), secrets
 * piped on stdin, and the same database opened by the test between runs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestHandle } from '../db/database.test-helper.ts';
import { openDatabase } from '../db/client.ts';
import type { CollectorContext } from '../collectors/context.ts';
import { loadHubConfig, type HubConfig } from '../platform/config/hub-config.ts';
import { systemClock } from '../platform/clock.ts';
import { createLog } from '../platform/log.ts';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliWorld {
  config: HubConfig;
  /** One CLI run: exit code, stdout, stderr. A child that outlives 60 s is killed (code -1). */
  cli(args: string[], stdin?: string): Promise<CliRun>;
  /** The CLI's database, opened by this process between CLI runs (PGlite allows one process at a time). */
  withHub<T>(work: (ctx: CollectorContext) => Promise<T>): Promise<T>;
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export async function cliWorld(t: TestHandle, name: string): Promise<CliWorld> {
  const work = await mkdtemp(join(tmpdir(), `alpr-${name}-`));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HUB_PUBLIC_URL: 'https://hub.example.test',
    // Credentials are sealed to a key derived from the hub secret: the CLI and the test must share it.
    HUB_SESSION_SECRET: 'camera-cli-test-secret-0123456789abcdef',
    HUB_DATA_DIR: join(work, 'hub'),
    ...(await cliDatabaseEnv(t, process.env, work)),
  };
  const config = loadHubConfig(env);
  return {
    config,
    cli: (args, stdin = '') =>
      new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          ['--import', 'tsx', 'hub/src/cli/main.ts', ...args],
          { cwd: repoRoot, env, timeout: 60_000 },
          (error, stdout, stderr) => {
            resolve({ code: error && typeof error.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr });
          },
        );
        child.stdin?.end(stdin);
      }),
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
