import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
// pino's Logger, named as the hub names it (platform/log.ts): db sits below platform.
import type { Logger as Log } from 'pino';
import type { MigrationTarget } from './migrate.ts';
import type { Row } from './raw.ts';
import * as schema from './schema/index.ts';
import type { AppDb } from './session.ts';

/** Stops one `listen` subscription. */
export type Unlisten = () => Promise<void>;

export interface OpenedDriver {
  db: AppDb;
  migrationTarget: MigrationTarget;
  /** LISTEN on `channel`; `onPayload` gets each NOTIFY payload committed after this resolves. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<Unlisten>;
  close(): Promise<void>;
}

/** A postgres.js pool against a real server (production, CI, the throwaway test cluster). */
export function openPostgres(url: string, log: Log, maxConnections: number): OpenedDriver {
  const client = postgres(url, {
    max: maxConnections,
    // Every session in UTC: month boundaries of partitions and `now()` arithmetic agree
    // with PGlite and with the hub's clock.
    // JIT off: PostgreSQL compiles a statement anew at every execution (the compiled code is
    // not kept with the plan) once its estimated cost passes jit_above_cost. Statements over
    // the monthly partitions cross it with ease; the convoy investigation spent 1.5 s of its
    // 1.57 s compiling at 3.8 million rows (68 ms without; docs/performance.md "Search").
    // No hub statement runs long enough to repay a compile.
    connection: { TimeZone: 'UTC', application_name: 'alpr-hub', jit: 'off' },
    // postgres.js prints NOTICEs to the console by default ("already exists, skipping").
    onnotice: (notice) => log.debug({ notice: notice.message }, 'postgres notice'),
  });
  const db: AppDb = drizzle({ client, schema });
  const migrationTarget: MigrationTarget = {
    transaction: async (fn) => {
      const result = await client.begin((tx) =>
        fn({
          exec: async (script) => {
            // No parameters: postgres.js uses the simple protocol, so a script may hold
            // several statements.
            await tx.unsafe(script);
          },
          query: async (text, params = []) => [...(await tx.unsafe<Row[]>(text, params as postgres.ParameterOrJSON<never>[]))],
        }),
      );
      return result as Awaited<ReturnType<typeof fn>>;
    },
  };
  // postgres.js keeps one dedicated connection for every LISTEN and re-issues them after a
  // reconnect, so a server restart does not silently end a subscription.
  const listen = async (channel: string, onPayload: (payload: string) => void): Promise<Unlisten> => {
    const request = await client.listen(channel, onPayload);
    return () => request.unlisten();
  };
  return { db, migrationTarget, listen, close: () => client.end({ timeout: 5 }) };
}
