import t from 'tap';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';

t.test('under CI without DATABASE_URL the CLI tests fail instead of falling back to PGlite', async (t) => {
  await t.rejects(cliDatabaseEnv(t, { CI: 'true' }, '/tmp/unused'), /Postgres required under CI/);
});

t.test('locally without DATABASE_URL: a PGlite folder inside the work folder', async (t) => {
  t.same(await cliDatabaseEnv(t, {}, '/tmp/work'), { HUB_DATA_DIR: '/tmp/work/hub' });
  t.same(await cliDatabaseEnv(t, { CI: 'false' }, '/tmp/work'), { HUB_DATA_DIR: '/tmp/work/hub' });
});
