import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Log } from '../log.ts';
import type { MigrationTarget } from './migrate.ts';
import type { Row } from './raw.ts';
import * as schema from './schema/index.ts';
import type { AppDb } from './session.ts';

export interface OpenedDriver {
  db: AppDb;
  migrationTarget: MigrationTarget;
  close(): Promise<void>;
}

/** A postgres.js pool against a real server (production, CI, the throwaway test cluster). */
export function openPostgres(url: string, log: Log, maxConnections: number): OpenedDriver {
  const client = postgres(url, {
    max: maxConnections,
    // Every session in UTC: month boundaries of partitions and `now()` arithmetic agree
    // with PGlite and with the hub's clock.
    connection: { TimeZone: 'UTC', application_name: 'alpr-hub' },
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
  return { db, migrationTarget, close: () => client.end({ timeout: 5 }) };
}
