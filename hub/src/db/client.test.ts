import t from 'tap';
import { checkDriverContract, checkListenContract } from './driver-contract.test-helper.ts';
import { testDatabase } from './database.test-helper.ts';

// The same contract the PGlite smoke test checks, here on whatever testDatabase gives:
// the real server when DATABASE_URL is set (CI), so both drivers are held to one API.
t.test('driver contract', async (t) => {
  const db = await testDatabase(t);
  t.comment(`backend: ${db.kind}`);
  await checkDriverContract(t, db);
  await checkListenContract(t, db);
});

// Every pooled session of a real server runs in UTC and without JIT (open-postgres.ts says why).
t.test('session settings on a real server', async (t) => {
  const db = await testDatabase(t);
  if (db.kind !== 'postgres') {
    t.pass('PGlite: one embedded session, no JIT to turn off');
    return;
  }
  const rows = await Promise.all(
    [1, 2, 3].map(() => db.transaction((tx) => tx.sql<{ jit: string; tz: string }>(`SELECT current_setting('jit') AS jit, current_setting('TimeZone') AS tz`))),
  );
  for (const [row] of rows) t.same(row, { jit: 'off', tz: 'UTC' });
});
