import type { AppDb } from './session.ts';

interface PostgresJsClient {
  unsafe(text: string, params: unknown[], options: { prepare: boolean }): Promise<unknown>;
}

/**
 * Runs `text` as a named prepared statement on the postgres.js connection under a drizzle
 * database or transaction. drizzle's `execute` always asks postgres.js for an unnamed
 * statement (`prepare: false`), so this goes to the client drizzle holds (`session.client`:
 * the pool, or the transaction's or savepoint's connection, so the statement runs where the
 * caller's transaction does). That is drizzle's internal shape; if a release changes it,
 * this throws at the first prepared query (client.test.ts checks it on the real server)
 * instead of silently running unprepared.
 */
export function runPrepared(db: AppDb, text: string, params: unknown[]): Promise<unknown> {
  const client = (db as unknown as { session?: { client?: Partial<PostgresJsClient> } }).session?.client;
  if (typeof client?.unsafe !== 'function') {
    throw new Error('drizzle-orm no longer exposes its postgres.js client as session.client (db/postgres-js-prepared.ts)');
  }
  return (client as PostgresJsClient).unsafe(text, params, { prepare: true });
}
