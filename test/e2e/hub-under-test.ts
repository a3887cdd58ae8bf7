import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../hub/src/db/client.ts';
import type { Row } from '../../hub/src/db/raw.ts';
import { testDatabase, type TestHandle } from '../../hub/src/db/test-database.ts';
import { createLog } from '../../hub/src/log.ts';
import { claimCollector, createPendingCollector, type Enrollment } from '../../scripts/demo/enroll.ts';
import { startHubProcess, type RunningProcess } from '../../scripts/demo/processes.ts';

/** Teardown step that reports how long it took and what it threw (a hung teardown names itself). */
export function traced(name: string, fn: () => Promise<unknown>): () => Promise<void> {
  return async () => {
    const began = Date.now();
    try {
      await fn();
    } catch (error) {
      process.stderr.write(`teardown ${name} failed: ${(error as Error).message}\n`);
      throw error;
    } finally {
      if (Date.now() - began > 5000) process.stderr.write(`teardown ${name} took ${Date.now() - began} ms\n`);
    }
  };
}

/** A free loopback port, so a restarted hub comes back at the same address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface HubUnderTest {
  url: string;
  enrollment: Enrollment;
  start(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  /** Query the hub database (stop the hub first when it runs on PGlite: one process at a time). */
  query<T extends Row>(text: string, params?: unknown[]): Promise<T[]>;
  running(): boolean;
  output(): string;
}

/**
 * A real hub process for cross-package tests, on real PostgreSQL when DATABASE_URL is set
 * (a fresh database per test), failing under CI without it, and on PGlite otherwise.
 */
export async function hubUnderTest(t: TestHandle & { comment(m: string): void }): Promise<HubUnderTest> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-e2e-hub-'));
  t.teardown(traced('rm data dir', () => rm(dataDir, { recursive: true, force: true })));
  let env: Record<string, string>;
  let query: HubUnderTest['query'];
  if (process.env['DATABASE_URL']) {
    const db = await testDatabase(t);
    env = { DATABASE_URL: db.url ?? '', HUB_DATA_DIR: dataDir };
    query = (text, params) => db.sql(text, params);
  } else if (process.env['CI'] === 'true') {
    throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  } else {
    t.comment('DATABASE_URL not set: the hub runs on PGlite');
    env = { DATABASE_URL: '', HUB_DATA_DIR: dataDir };
    query = async (text, params) => {
      const db = await openDatabase({ dataDir: join(dataDir, 'pglite'), log: createLog('silent') });
      try {
        return await db.sql(text, params);
      } finally {
        await db.close();
      }
    };
  }
  Object.assign(env, { HUB_HOST: '127.0.0.1', HUB_PORT: String(port), HUB_LOG_LEVEL: 'warn' });
  const claimCode = await createPendingCollector(env, 'E2E site');
  let hub: RunningProcess | undefined;
  let log = '';
  const url = `http://127.0.0.1:${port}`;
  const start = async (): Promise<void> => {
    hub = await startHubProcess({ env, timeoutMs: 120_000 });
  };
  const end = async (how: 'stop' | 'kill'): Promise<void> => {
    if (!hub) return;
    log += hub.output();
    await hub[how]();
    hub = undefined;
  };
  await start();
  const enrollment = await claimCollector(url, claimCode, `e2e-${port}`);
  t.teardown(traced('stop process', () => end('stop')));
  return {
    url,
    enrollment,
    start,
    stop: () => end('stop'),
    kill: () => end('kill'),
    query,
    running: () => hub !== undefined,
    output: () => log + (hub?.output() ?? ''),
  };
}
