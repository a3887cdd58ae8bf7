// pino's Logger, named as the hub names it (platform/log.ts): db sits below platform.
import type { Logger as Log } from 'pino';
import type { Listen } from './listen.ts';
import { runMigrations, type Migration, type MigrationReport } from './migrate.ts';
import { openPglite } from './open-pglite.ts';
import { openPostgres, type OpenedDriver } from './open-postgres.ts';
import { ensureUpcomingPartitions } from './partitions.ts';
import { makeSession, type DatabaseKind, type DbSession } from './session.ts';

export type { Unlisten } from './open-postgres.ts';

export interface OpenDatabaseOptions {
  /** postgres://… : a real server. Unset: embedded PGlite. */
  url?: string;
  /** PGlite data folder; unset with no url means an in-memory database (tests). */
  dataDir?: string;
  log: Log;
  /** postgres.js pool size (default 10). PGlite always has one connection. */
  maxConnections?: number;
  /** Time source for the start-up partition check (default: now). */
  now?: () => Date;
}

export interface Database extends DbSession {
  /** What this open applied. */
  readonly migrations: MigrationReport;
  /** Runs migrations again through the driver (default: the shipped files). Tests, tools. */
  migrate(migrations?: readonly Migration[], log?: Log): Promise<MigrationReport>;
  /**
   * LISTEN on `channel` (not inside a transaction: a listener outlives them). Payloads come
   * from NOTIFYs committed after the returned promise resolves, in commit order.
   */
  listen: Listen;
  close(): Promise<void>;
}

/**
 * Opens the hub database, applies pending migrations and makes sure this month's detection
 * partitions exist. Callers get one API whatever the backend: drizzle (`db`), raw SQL with
 * `$n` parameters (`sql`), and `transaction`. bigint values come back as strings on both.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const kind: DatabaseKind = options.url ? 'postgres' : 'pglite';
  const driver: OpenedDriver = options.url
    ? openPostgres(options.url, options.log, options.maxConnections ?? 10)
    : await openPglite(options.dataDir, options.log);
  try {
    const migrate = (list?: readonly Migration[], log?: Log) => runMigrations(driver.migrationTarget, log ?? options.log, list);
    const migrations = await migrate();
    const session = makeSession(kind, driver.db, false);
    await ensureUpcomingPartitions(session, options.now?.() ?? new Date());
    return { ...session, migrations, migrate, listen: driver.listen, close: driver.close };
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err;
  }
}
