import { join } from 'node:path';
import { testDatabase, type TestHandle } from '../db/database.test-helper.ts';

/**
 * The database environment for a CLI child process, by the same rule as `testDatabase`:
 * - DATABASE_URL set: a fresh database on that server, handed to the CLI by URL;
 * - not set and CI=true: throws, so the test fails (CI must exercise the real server);
 * - not set locally: a PGlite folder that only the CLI process opens (PGlite allows one
 *   process per folder, so the test itself never opens it).
 * `environment` is an argument so the CI rule can be tested without touching process.env.
 */
export async function cliDatabaseEnv(t: TestHandle, environment: NodeJS.ProcessEnv, workDir: string): Promise<Record<string, string>> {
  if (environment['DATABASE_URL']) {
    const db = await testDatabase(t);
    return { DATABASE_URL: db.url ?? '' };
  }
  if (environment['CI'] === 'true') {
    throw new Error('Postgres required under CI: run scripts/test-postgres.sh start and export DATABASE_URL');
  }
  const dir = join(workDir, 'hub');
  t.comment(`DATABASE_URL not set: the CLI uses PGlite in ${dir}`);
  return { HUB_DATA_DIR: dir };
}
