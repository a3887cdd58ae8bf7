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
