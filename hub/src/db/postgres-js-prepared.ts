import type postgres from 'postgres';
import type { AppDb } from './session-types.ts';

/**
 * The postgres.js client under a drizzle database or transaction (`session.client`: the
 * pool, which can `reserve`, or the transaction's or savepoint's connection). That is
 * drizzle's internal shape; if a release changes it, this throws at the first use
 * (client.test.ts checks it on the real server) instead of silently doing something else.
 */
export function postgresJsClient(db: AppDb): Pick<postgres.Sql, 'unsafe'> & Partial<Pick<postgres.Sql, 'reserve'>> {
  const client = (db as unknown as { session?: { client?: Partial<postgres.Sql> } }).session?.client;
  if (typeof client?.unsafe !== 'function') {
    throw new Error('drizzle-orm no longer exposes its postgres.js client as session.client (db/postgres-js-prepared.ts)');
  }
  return client as Pick<postgres.Sql, 'unsafe'> & Partial<Pick<postgres.Sql, 'reserve'>>;
}

/**
 * Runs `text` as a named prepared statement on the postgres.js connection under a drizzle
 * database or transaction. drizzle's `execute` always asks postgres.js for an unnamed
 * statement (`prepare: false`), so this goes to the client drizzle holds, where the
 * caller's transaction runs.
 */
export function runPrepared(db: AppDb, text: string, params: unknown[]): Promise<unknown> {
  return postgresJsClient(db).unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
}
