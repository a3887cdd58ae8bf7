import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
// pino itself, as client.ts takes it: db sits below platform, whose log is the same pino.
import { pino, type Logger as Log } from 'pino';
import { openDatabase, type Database } from './client.ts';

/** The slice of a tap Test this helper needs (kept structural so it stays test-runner agnostic). */
export interface TestHandle {
  comment(...message: unknown[]): void;
  teardown(fn: () => unknown): void;
}

export interface TestDatabaseOptions {
  log?: Log;
  maxConnections?: number;
}

export interface TestDatabase extends Database {
  /** Connection URL of the fresh database (postgres only), to open more pools on it. */
  readonly url: string | undefined;
}

/**
 * A fresh, migrated database for one test, removed afterwards.
 * - DATABASE_URL set: CREATE DATABASE alpr_test_<random> on that server, DROP it at teardown.
 * - Not set and CI=true: throws, so the test fails (CI must exercise the real server).
 * - Not set locally: PGlite in a temporary folder, and the test output says so.
 * - ALPR_E2E_DATABASE=pglite: PGlite whatever the rest says. .ci/run's PGlite phase sets it
 *   beside a server's DATABASE_URL, so the tests it names (in-process hubs and API tests as
 *   well as hub processes, test/e2e/hub-under-test.ts) really run on PGlite there.
 * Environment is read here on purpose: this is test plumbing, not hub configuration.
 */
export async function testDatabase(t: TestHandle, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const log = options.log ?? pino({ level: 'silent' });
  const forcePglite = process.env['ALPR_E2E_DATABASE'] === 'pglite';
  const adminUrl = forcePglite ? undefined : process.env['DATABASE_URL'];
  if (!adminUrl) {
    if (process.env['CI'] === 'true' && !forcePglite) {
      throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
    }
    const dir = await mkdtemp(join(tmpdir(), 'alpr-pglite-'));
    t.comment(
      forcePglite
        ? `ALPR_E2E_DATABASE=pglite: using PGlite in ${dir}`
        : `DATABASE_URL not set: using PGlite in ${dir} (start scripts/test-postgres.sh for the real server)`,
    );
    const db = await openDatabase({ dataDir: dir, log });
    t.teardown(async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { ...db, url: undefined };
  }
  const name = `alpr_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = withDatabase(adminUrl, name);
  t.teardown(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  });
  const db = await openDatabase({ url, log, maxConnections: options.maxConnections ?? 4 });
  // Registered after the DROP, but tap runs teardowns in reverse order: close first.
  t.teardown(() => db.close());
  return { ...db, url };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** drizzle's `eq` from the hub's own copy, for tests outside hub/ (test/integration) that query hub tables. */
export { eq } from 'drizzle-orm';
