import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../hub/src/db/client.ts';
import { verifyChain, type ChainVerification } from '../../hub/src/db/chain.ts';
import type { Row } from '../../hub/src/db/raw.ts';
import type { DbSession } from '../../hub/src/db/session.ts';
import { copyMigratedPglite, testDatabase, type TestHandle } from '../../hub/src/db/database.test-helper.ts';
import { createLog } from '../../hub/src/platform/log.ts';
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
  /**
   * What the hub holds: stops the hub (gracefully), then opens its database from this process
   * and runs `read`. PGlite allows one process per data folder, so the hub is never running
   * while the test reads; on PostgreSQL the same order keeps both paths identical.
   */
  inspect<T>(read: (db: DbSession) => Promise<T>): Promise<T>;
  running(): boolean;
  /** Which database the hub runs on. */
  database: 'postgres' | 'pglite';
  output(): string;
}

/**
 * A real hub process for cross-package tests, on real PostgreSQL when DATABASE_URL is set
 * (a fresh database per test), failing under CI without it, and on PGlite otherwise.
 */
export interface HubUnderTestOptions {
  /** Runs with the hub's environment before the hub starts (CLI set-up: PGlite allows one process). */
  beforeStart?: (env: Record<string, string>) => Promise<void>;
  /** Extra hub environment. */
  env?: Record<string, string>;
}

export async function hubUnderTest(t: TestHandle & { comment(m: string): void }, options: HubUnderTestOptions = {}): Promise<HubUnderTest> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-e2e-hub-'));
  t.teardown(traced('rm data dir', () => rm(dataDir, { recursive: true, force: true })));
  let env: Record<string, string>;
  let open: () => Promise<{ session: DbSession; close(): Promise<void> }>;
  // ALPR_E2E_DATABASE=pglite runs the hub on PGlite even when a server is available (CI's
  // second phase), so both backends stay covered.
  const forcePglite = process.env['ALPR_E2E_DATABASE'] === 'pglite';
  if (process.env['DATABASE_URL'] && !forcePglite) {
    const db = await testDatabase(t);
    env = { DATABASE_URL: db.url ?? '', HUB_DATA_DIR: dataDir };
    open = async () => ({ session: db, close: async () => undefined });
  } else if (process.env['CI'] === 'true' && !forcePglite) {
    throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  } else {
    t.comment('the hub runs on PGlite');
    // The hub reads an empty DATABASE_URL as "embedded PGlite in HUB_DATA_DIR"; its folder
    // starts as a copy of a migrated one (migrating an empty PGlite takes tens of seconds).
    await copyMigratedPglite(join(dataDir, 'pglite'));
    env = { DATABASE_URL: '', HUB_DATA_DIR: dataDir };
    open = async () => {
      const db = await openDatabase({ dataDir: join(dataDir, 'pglite'), log: createLog('silent') });
      return { session: db, close: () => db.close() };
    };
  }
  const database = env['DATABASE_URL'] ? 'postgres' : 'pglite';
  Object.assign(env, { HUB_HOST: '127.0.0.1', HUB_PORT: String(port), HUB_LOG_LEVEL: 'warn' }, options.env ?? {});
  const claimCode = await createPendingCollector(env, 'E2E site');
  await options.beforeStart?.(env);
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
    inspect: async (read) => {
      await end('stop');
      const db = await open();
      try {
        return await read(db.session);
      } finally {
        await db.close();
      }
    },
    running: () => hub !== undefined,
    database,
    output: () => log + (hub?.output() ?? ''),
  };
}

export interface HubHoldings<R> {
  rows: R[];
  /** The real chain verifier's answer for every collector that has detections. */
  chains: Map<string, ChainVerification>;
}

/** Reads `select` and verifies the hash chain of every collector with the hub's verifier. */
export async function readHoldings<R extends Row>(db: DbSession, select: string): Promise<HubHoldings<R>> {
  const rows = await db.sql<R>(select);
  const collectors = await db.sql<{ collector_id: string }>('SELECT DISTINCT collector_id::text AS collector_id FROM detections');
  const chains = new Map<string, ChainVerification>();
  for (const { collector_id } of collectors) chains.set(collector_id, await verifyChain(db, collector_id));
  return { rows, chains };
}

/** Problems with the chains: a broken link, or a chain that does not cover every row. */
export function chainProblems(holdings: HubHoldings<Row>): string[] {
  const problems: string[] = [];
  let covered = 0;
  for (const [collector, v] of holdings.chains) {
    if (v.ok) covered += v.count;
    else problems.push(`collector ${collector}: chain broken at seq ${v.brokenAt.chain_seq} (${v.brokenAt.reason})`);
  }
  if (problems.length === 0 && covered !== holdings.rows.length) problems.push(`chains cover ${covered} of ${holdings.rows.length} rows`);
  if (holdings.rows.length > 0 && holdings.chains.size === 0) problems.push('no chain verified');
  return problems;
}
