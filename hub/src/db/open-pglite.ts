import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
// pino's Logger, named as the hub names it (platform/log.ts): db sits below platform.
import type { Logger as Log } from 'pino';
import type { MigrationTarget } from './migrate.ts';
import type { OpenedDriver, Unlisten } from './open-postgres.ts';
import { lockPgliteFolder } from './pglite-lock.ts';
import * as schema from './schema/index.ts';
import type { AppDb } from './session.ts';

/**
 * Embedded PostgreSQL (PGlite, WASM) in `dataDir`, or in memory when dataDir is undefined.
 * One connection: transactions run one at a time. About 5 s to start.
 */
export async function openPglite(dataDir: string | undefined, log: Log): Promise<OpenedDriver> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const unlock = dataDir ? await lockPgliteFolder(dataDir) : async () => undefined;
  const client = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    extensions: { pg_trgm },
    // int8 stays text, as postgres.js returns it: PGlite's default parses it to a JS number,
    // which silently loses precision above 2^53.
    parsers: { [types.INT8]: (value: string) => value },
  }).catch(async (error: unknown) => {
    await unlock();
    throw error;
  });
  await client.exec(`SET TIME ZONE 'UTC'`);
  log.debug({ dataDir: dataDir ?? 'memory' }, 'pglite opened');
  const db: AppDb = drizzle({ client, schema });
  const migrationTarget: MigrationTarget = {
    transaction: (fn) =>
      client.transaction((tx) =>
        fn({
          exec: async (script) => {
            await tx.exec(script);
          },
          query: async (text, params = []) => (await tx.query<Record<string, unknown>>(text, [...params])).rows,
        }),
      ),
  };
  // PGlite is one in-process backend: a NOTIFY reaches listeners of this process only,
  // which is all there is (the folder lock allows one process).
  const listen = async (channel: string, onPayload: (payload: string) => void): Promise<Unlisten> => {
    const stop = await client.listen(channel, onPayload);
    return () => stop();
  };
  return {
    db,
    migrationTarget,
    listen,
    close: async () => {
      await client.close();
      await unlock();
    },
  };
}
