import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// pino's Logger, named as the hub names it (platform/log.ts): db sits below platform.
import type { Logger as Log } from 'pino';
import type { Row } from './raw.ts';

/** Driver-level access the runner needs: multi-statement scripts inside one transaction. */
export interface MigrationTx {
  exec(script: string): Promise<void>;
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
}
export interface MigrationTarget {
  transaction<T>(fn: (tx: MigrationTx) => Promise<T>): Promise<T>;
}

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Every hub process takes this transaction-scoped advisory lock around each migration, so
 * two processes starting together apply each file once: the second waits, then finds the
 * version recorded. Arbitrary constant: the bytes of 'alprmigr'.
 */
const MIGRATION_LOCK = '7020109555927967602';

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => FILE_NAME.test(f)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const m = FILE_NAME.exec(file);
    if (!m?.[1] || !m[2]) continue;
    const sql = await readFile(join(dir, file), 'utf8');
    const checksum = createHash('sha256').update(sql).digest('hex');
    migrations.push({ version: m[1], name: m[2], sql, checksum });
  }
  const versions = new Set(migrations.map((m) => m.version));
  if (versions.size !== migrations.length) throw new Error(`duplicate migration numbers in ${dir}`);
  return migrations;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies the migrations not yet recorded in schema_migrations, in order, each in its own
 * transaction under the advisory lock. The SQL itself is idempotent (IF NOT EXISTS, OR
 * REPLACE), so a file applied by hand or half-recorded is safe to run again.
 */
export async function runMigrations(target: MigrationTarget, log: Log, migrations?: readonly Migration[]): Promise<MigrationReport> {
  const list = migrations ?? (await loadMigrations());
  const report: MigrationReport = { applied: [], alreadyApplied: 0 };
  // Most starts find every file recorded: one read tells, where a locked transaction per file
  // took about 0.4 s for 44 files on a busy machine (every hub, CLI command and test database
  // paid it). A version missing here still goes through the lock, which checks again.
  const recorded = await recordedChecksums(target);
  for (const migration of list) {
    const seen = recorded.get(migration.version);
    if (seen !== undefined) {
      if (seen !== migration.checksum) warnChanged(log, migration);
      report.alreadyApplied++;
      continue;
    }
    const applied = await target.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      // Checked first: CREATE TABLE IF NOT EXISTS needs CREATE on the schema even when the
      // table exists, which the hub's alpr_app role does not have.
      const [table] = await tx.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
      if (table?.['present'] !== true)
        await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    text PRIMARY KEY,
        name       text NOT NULL,
        checksum   char(64) NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const [done] = await tx.query('SELECT checksum FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done) {
        if (done['checksum'] !== migration.checksum) warnChanged(log, migration);
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum]);
      return true;
    });
    if (applied) {
      report.applied.push(`${migration.version}_${migration.name}`);
      log.info({ version: migration.version, name: migration.name }, 'migration applied');
    } else {
      report.alreadyApplied++;
    }
  }
  return report;
}

/** Version → checksum of the files recorded so far; empty before the first migration. */
async function recordedChecksums(target: MigrationTarget): Promise<Map<string, string>> {
  return target.transaction(async (tx) => {
    const [table] = await tx.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
    if (table?.['present'] !== true) return new Map<string, string>();
    const rows = await tx.query('SELECT version, checksum FROM schema_migrations');
    return new Map(rows.map((r) => [String(r['version']), String(r['checksum'])]));
  });
}

function warnChanged(log: Log, migration: Migration): void {
  // Not fatal: a comment fix changes the checksum. Schema changes need a new file.
  log.warn({ version: migration.version, name: migration.name }, 'applied migration file has changed since');
}
