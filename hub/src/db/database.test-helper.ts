import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
// pino itself, as client.ts takes it: db sits below platform, whose log is the same pino.
import { pino, type Logger as Log } from 'pino';
import { openDatabase, type Database } from './client.ts';
import { loadMigrations } from './migrate.ts';

/** The slice of a tap Test this helper needs (kept structural so it stays test-runner agnostic). */
export interface TestHandle {
  comment(...message: unknown[]): void;
  teardown(fn: () => unknown): void;
}

export interface TestDatabaseOptions {
  log?: Log;
  maxConnections?: number;
  /**
   * Run every migration on an empty database (PostgreSQL or PGlite): for the tests of migrating
   * itself. Otherwise the database is a copy of a migrated template (`migratedTemplate`,
   * `copyMigratedPglite`).
   */
  fromScratch?: boolean;
}

export interface TestDatabase extends Database {
  /** Connection URL of the fresh database (postgres only), to open more pools on it. */
  readonly url: string | undefined;
}

/**
 * A fresh, migrated database for one test, removed afterwards.
 * - DATABASE_URL set: CREATE DATABASE alpr_test_<random> on that server, a copy of a migrated
 *   template (`migratedTemplate`), DROP it at teardown.
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
    if (!options.fromScratch) await copyMigratedPglite(dir);
    const db = await openDatabase({ dataDir: dir, log });
    t.teardown(async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { ...db, url: undefined };
  }
  const name = `alpr_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  if (options.fromScratch) await admin.unsafe(`CREATE DATABASE ${name}`);
  else await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${await migratedTemplate(admin, adminUrl)}`);
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

/** A template of another migration set (or day) older than this is removed on the way. */
const STALE_TEMPLATE_MS = 86_400_000;

/**
 * A database with every migration applied, built once per set of migration files on this
 * server and copied for each test: migrating an empty database took about 1.4 s on a busy
 * 2-core machine, a copy of the template about 0.1 s, and the suite makes a few hundred.
 * Its name carries a hash of the files and the day, so an edited or added migration gets a new
 * template, and so does each day (the partitions a migration makes are around today).
 * Built under a session advisory lock (test files run side by side, and two suites may share
 * a server); the flag `datistemplate`, set last, marks it complete, so one left half-built
 * by a killed run is dropped and built again. Templates of other file sets older than a day
 * are dropped on the way (a run of another checkout may still copy a newer one).
 */
async function migratedTemplate(admin: postgres.Sql, adminUrl: string): Promise<string> {
  const name = `alpr_template_${await migrationsKey()}`;
  const ready = async (): Promise<boolean> =>
    (await admin<{ ok: boolean }[]>`SELECT datistemplate AS ok FROM pg_database WHERE datname = ${name}`)[0]?.ok === true;
  if (await ready()) return name;
  // A session lock on the one connection (max: 1) of `admin`; arbitrary constant 'alprtmpl'.
  await admin`SELECT pg_advisory_lock(7020109558349352300)`;
  try {
    if (await ready()) return name;
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const stale = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database
       WHERE datname LIKE 'alpr!_template!_%' ESCAPE '!' AND datname <> ${name}
         AND coalesce(shobj_description(oid, 'pg_database'), '') < ${new Date(Date.now() - STALE_TEMPLATE_MS).toISOString()}`;
    for (const { datname } of stale) {
      await admin.unsafe(`ALTER DATABASE ${datname} IS_TEMPLATE false`);
      await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const db = await openDatabase({ url: withDatabase(adminUrl, name), log: pino({ level: 'silent' }), maxConnections: 1 });
    await db.close();
    await admin.unsafe(`COMMENT ON DATABASE ${name} IS '${new Date().toISOString()}'`);
    await admin.unsafe(`ALTER DATABASE ${name} IS_TEMPLATE true`);
    return name;
  } finally {
    await admin`SELECT pg_advisory_unlock(7020109558349352300)`;
  }
}

let keyOfDay: { day: string; key: string } | undefined;

/**
 * The migration files and the day: migrating makes the partitions around today, as a fresh
 * database would. Read once a process and day (a test file opens many databases; the files do
 * not change under a running test).
 */
async function migrationsKey(): Promise<string> {
  const day = new Date().toISOString().slice(0, 10);
  if (keyOfDay?.day === day) return keyOfDay.key;
  const hash = createHash('sha256').update(day);
  for (const m of await loadMigrations()) hash.update(`${m.version} ${m.checksum}\n`);
  keyOfDay = { day, key: hash.digest('hex').slice(0, 16) };
  return keyOfDay.key;
}

const PGLITE_TEMPLATE_PREFIX = 'alpr-pglite-template-';

/**
 * Fills the empty folder `dir` with a copy of a migrated PGlite data folder, so opening it
 * applies nothing: migrating an empty PGlite took about 27 s on a busy 2-core machine, a copy
 * about 10 s there and opening it 1.4 s. The template lies in the temporary folder, named like
 * the PostgreSQL one; it is built in a folder of its own and renamed into place when complete,
 * so test processes building it at once never see half of one (the loser's copy is removed).
 * Templates of other migration sets older than a day are removed on the way. Also used for a
 * hub process's PGlite folder (test/e2e/hub-under-test.ts).
 */
export async function copyMigratedPglite(dir: string): Promise<void> {
  const key = await migrationsKey();
  const template = join(tmpdir(), `${PGLITE_TEMPLATE_PREFIX}${key}`);
  if (!(await exists(template))) {
    await removeStalePgliteTemplates(key);
    const building = await mkdtemp(`${template}.building-`);
    const db = await openDatabase({ dataDir: building, log: pino({ level: 'silent' }) });
    await db.close();
    await rename(building, template).catch(() => rm(building, { recursive: true, force: true }));
  }
  await cp(template, dir, { recursive: true });
}

async function removeStalePgliteTemplates(key: string): Promise<void> {
  const dayAgo = Date.now() - STALE_TEMPLATE_MS;
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith(PGLITE_TEMPLATE_PREFIX) || name.startsWith(`${PGLITE_TEMPLATE_PREFIX}${key}`)) continue;
    const path = join(tmpdir(), name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs < dayAgo) await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** drizzle's `eq` from the hub's own copy, for tests outside hub/ (test/integration) that query hub tables. */
export { eq } from 'drizzle-orm';
