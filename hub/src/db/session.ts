import { runPipelined, type PipelinedSession } from './pipelined-transaction.ts';
import { postgresJsClient, runPrepared } from './postgres-js-prepared.ts';
import {
  driverParams,
  normalizeRows,
  rowsFromPostgresJs,
  toDrizzleSql,
  unwrapDriverError,
  type ColumnType,
  type QueryOptions,
  type RawQuery,
  type Row,
} from './raw.ts';
import type { AppDb, DatabaseKind, StatementSession } from './session-types.ts';

export type { AppDb, DatabaseKind, Schema, StatementSession } from './session-types.ts';

/**
 * What every query helper takes: the drizzle API, raw SQL and a transaction helper, all
 * bound to the same connection. Inside `transaction`, use the `tx` session you are given,
 * never the outer one: PGlite has a single connection, so an outer query would wait for
 * the transaction that waits for it. A nested `transaction` becomes a savepoint.
 */
export interface DbSession extends StatementSession {
  readonly db: AppDb;
  transaction<T>(fn: (tx: DbSession) => Promise<T>): Promise<T>;
  /**
   * A transaction for hot paths, two round trips shorter on PostgreSQL: its BEGIN goes out
   * with fn's first statement, its COMMIT right behind the statements handed to
   * `commitWith` (pipelined-transaction.ts). Raw statements only; elsewhere (PGlite, inside
   * a transaction) it is `transaction`, with the same meaning.
   */
  pipelinedTransaction<T>(fn: (tx: PipelinedSession) => Promise<T>): Promise<T>;
}

/** Builds a session over a drizzle database or transaction object. */
export function makeSession(kind: DatabaseKind, db: AppDb, inTransaction: boolean): DbSession {
  const query: RawQuery = async <T extends Row = Row>(text: string, params: readonly unknown[] = [], options: QueryOptions = {}) => {
    let result: unknown;
    try {
      result =
        kind === 'postgres' && options.prepare === true
          ? await runPrepared(db, text, driverParams(text, params))
          : await db.execute(toDrizzleSql(text, params));
    } catch (err) {
      throw unwrapDriverError(err);
    }
    return kind === 'pglite' ? fromPglite<T>(result) : rowsFromPostgresJs<T>(result);
  };
  const transaction: DbSession['transaction'] = (fn) => db.transaction((tx) => fn(makeSession(kind, tx, true)));
  return {
    kind,
    db,
    sql: query,
    inTransaction,
    transaction,
    pipelinedTransaction: (fn) => {
      const pool = kind === 'postgres' && !inTransaction ? postgresJsClient(db) : undefined;
      if (pool?.reserve) return runPipelined(pool as Required<typeof pool>, fn);
      return transaction(async (tx) => {
        const pending: Promise<unknown>[] = [];
        const value = await fn({
          ...tx,
          commitWith: (statements) => {
            statements.catch(() => undefined);
            pending.push(statements);
          },
        });
        for (const statements of pending) await statements;
        // As on the pipelined path: a statement fn did not wait for that failed has aborted
        // the transaction, and its COMMIT would quietly be a ROLLBACK. This fails instead.
        await tx.sql('SELECT 1');
        return value;
      });
    },
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
