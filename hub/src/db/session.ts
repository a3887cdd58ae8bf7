import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { runPrepared } from './postgres-js-prepared.ts';
import { driverParams, normalizeRows, toDrizzleSql, unwrapDriverError, type ColumnType, type QueryOptions, type RawQuery, type Row } from './raw.ts';
import type * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** The drizzle API both backends share; a transaction is one of these too. */
export type AppDb = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type DatabaseKind = 'pglite' | 'postgres';

/**
 * What every query helper takes: the drizzle API, raw SQL and a transaction helper, all
 * bound to the same connection. Inside `transaction`, use the `tx` session you are given,
 * never the outer one: PGlite has a single connection, so an outer query would wait for
 * the transaction that waits for it. A nested `transaction` becomes a savepoint.
 */
export interface DbSession {
  readonly kind: DatabaseKind;
  readonly db: AppDb;
  readonly sql: RawQuery;
  readonly inTransaction: boolean;
  transaction<T>(fn: (tx: DbSession) => Promise<T>): Promise<T>;
}

/** Builds a session over a drizzle database or transaction object. */
export function makeSession(kind: DatabaseKind, db: AppDb, inTransaction: boolean): DbSession {
  const query: RawQuery = async <T extends Row = Row>(text: string, params: readonly unknown[] = [], options: QueryOptions = {}) => {
    let result: unknown;
    try {
      result = kind === 'postgres' && options.prepare === true
        ? await runPrepared(db, text, driverParams(text, params))
        : await db.execute(toDrizzleSql(text, params));
    } catch (err) {
      throw unwrapDriverError(err);
    }
    return kind === 'pglite' ? fromPglite<T>(result) : fromPostgresJs<T>(result);
  };
  return {
    kind,
    db,
    sql: query,
    inTransaction,
    transaction: (fn) => db.transaction((tx) => fn(makeSession(kind, tx, true))),
  };
}

interface PgliteResult {
  rows: Row[];
  fields: { name: string; dataTypeID: number }[];
}

function fromPglite<T extends Row>(result: unknown): T[] {
  const r = result as PgliteResult;
  const columns: ColumnType[] = r.fields.map((f) => ({ name: f.name, oid: f.dataTypeID }));
  return normalizeRows<T>(r.rows, columns);
}

/** postgres.js resolves to an array of rows carrying a `columns` description. */
function fromPostgresJs<T extends Row>(result: unknown): T[] {
  const rows = result as Row[] & { columns?: { name: string; type: number }[] };
  const columns: ColumnType[] = (rows.columns ?? []).map((c) => ({ name: c.name, oid: c.type }));
  return normalizeRows<T>([...rows], columns);
}
