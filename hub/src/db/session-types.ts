import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { RawQuery } from './raw.ts';
import type * as schema from './schema/index.ts';

/**
 * The session's types that its two PostgreSQL helpers (pipelined-transaction.ts,
 * postgres-js-prepared.ts) need as well: here, beneath session.ts, which imports those helpers
 * and re-exports these, so that no import runs back up to it.
 */
export type Schema = typeof schema;
/** The drizzle API both backends share; a transaction is one of these too. */
export type AppDb = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type DatabaseKind = 'pglite' | 'postgres';

/** What statement helpers need: raw SQL, maybe inside a transaction (a DbSession is one). */
export interface StatementSession {
  readonly kind: DatabaseKind;
  readonly sql: RawQuery;
  readonly inTransaction: boolean;
}
