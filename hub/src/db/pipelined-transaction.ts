import type postgres from 'postgres';
import { driverParams, rowsFromPostgresJs, unwrapDriverError, type RawQuery } from './raw.ts';
import type { StatementSession } from './session-types.ts';

/** The session a pipelined transaction's fn gets (session.ts `pipelinedTransaction`). */
export interface PipelinedSession extends StatementSession {
  /**
   * `statements` were sent through this session's `sql`: the COMMIT goes out behind them
   * without waiting for their answers, and the transaction commits them with the rest, or
   * nothing if they fail (it then throws their error). The usual last step of fn, in place of
   * `await`: the two travel in one round trip.
   */
  commitWith(statements: Promise<unknown>): void;
}

/**
 * A transaction on a reserved postgres.js connection, sent as a pipeline (docs/database.md,
 * "Pipelined transactions"). postgres.js's own `begin` waits for BEGIN's answer before it
 * runs the callback and for the callback's last answer before it sends COMMIT: two round
 * trips in which the transaction's statements sit still. Under four collectors on two cores
 * each round trip cost 5-15 ms (both processes must be scheduled), a sixth of a batch.
 *
 * Here every statement is handed to the connection when `sql` is called (`execute`), so
 * the connection sends them in call order, behind BEGIN; PostgreSQL runs them one after the
 * other, each in the transaction. A statement that fails leaves the transaction aborted:
 * every later one fails with 25P02 and COMMIT ends it as a ROLLBACK, which is checked, so
 * nothing of a failed transaction is kept whichever statement the caller awaited.
 * BEGIN itself can fail only with the connection, and then every statement behind it fails
 * too: nothing runs outside the transaction.
 */
export async function runPipelined<T>(pool: Pick<postgres.Sql, 'reserve'>, fn: (tx: PipelinedSession) => Promise<T>): Promise<T> {
  const connection = await pool.reserve();
  const send = (text: string, params: readonly unknown[] = [], prepare = false) => {
    const query = connection.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare }).execute();
    // Awaited below or by fn; without this a failure fn did not wait for would be reported
    // as unhandled.
    query.catch(() => undefined);
    return query;
  };
  const inFlight: Promise<unknown>[] = [send('begin')];
  let ended = false;
  try {
    const sql: RawQuery = async (text, params = [], options = {}) => {
      try {
        return rowsFromPostgresJs(await send(text, driverParams(text, params), options.prepare === true));
      } catch (err) {
        throw unwrapDriverError(err);
      }
    };
    const value = await fn({
      kind: 'postgres',
      inTransaction: true,
      sql,
      commitWith: (statements) => {
        statements.catch(() => undefined);
        inFlight.push(statements);
      },
    });
    const commit = send('commit');
    const failure = (await Promise.allSettled(inFlight)).find((r) => r.status === 'rejected');
    const ending = await commit;
    ended = true;
    if (failure) throw unwrapDriverError(failure.reason);
    // COMMIT of an aborted transaction answers ROLLBACK, not an error.
    if (ending.command !== 'COMMIT') throw new Error(`the transaction ended with ${ending.command}, not COMMIT`);
    return value;
  } catch (err) {
    if (!ended) await send('rollback').catch(() => undefined);
    throw err;
  } finally {
    connection.release();
  }
}
