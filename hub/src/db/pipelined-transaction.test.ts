import t from 'tap';
import { testDatabase, type TestDatabase } from './database.test-helper.ts';

// session.ts pipelinedTransaction on whatever testDatabase gives: a reserved postgres.js
// connection with BEGIN and COMMIT pipelined on the real server, `transaction` on PGlite.
// Both must mean the same: all or nothing, in the order the statements were sent.

const table = async (db: TestDatabase): Promise<void> => {
  await db.sql(`CREATE TABLE pipelined (n int PRIMARY KEY CHECK (n < 100))`);
  // A constraint checked at COMMIT, so a failure can come from the COMMIT itself.
  await db.sql(`CREATE TABLE pipelined_child (n int NOT NULL REFERENCES pipelined (n) DEFERRABLE INITIALLY DEFERRED)`);
};
const stored = async (db: TestDatabase, name = 'pipelined'): Promise<number[]> =>
  (await db.sql<{ n: number }>(`SELECT n FROM ${name} ORDER BY n`)).map((r) => r.n);
const insert = `INSERT INTO pipelined (n) VALUES ($1)`;

t.test('statements run in one transaction, in the order sent, and commit together', async (t) => {
  const db = await testDatabase(t);
  t.comment(`backend: ${db.kind}`);
  await table(db);
  const txids = await db.pipelinedTransaction(async (tx) => {
    t.equal(tx.inTransaction, true, 'the session says it is in a transaction');
    // Sent without waiting for one another: they still run in this order.
    const [a, , b] = await Promise.all([
      tx.sql<{ id: string }>(`SELECT txid_current()::text AS id`, [], { prepare: true }),
      tx.sql(insert, [1], { prepare: true }),
      tx.sql<{ id: string; n: number }>(`SELECT txid_current()::text AS id, max(n) AS n FROM pipelined`),
    ]);
    t.equal(b[0]?.n, 1, 'the insert ran before the select sent after it');
    tx.commitWith(tx.sql(insert, [2], { prepare: true }));
    return [a[0]?.id, b[0]?.id];
  });
  t.ok(txids[0], 'a transaction id');
  t.equal(txids[0], txids[1], 'both statements ran in the same transaction (BEGIN went first)');
  t.same(await stored(db), [1, 2], 'the statements and the one sent with the COMMIT are committed');
});

t.test('a statement sent with the COMMIT that fails: nothing is kept, its error is thrown', async (t) => {
  const db = await testDatabase(t);
  await table(db);
  await t.rejects(
    db.pipelinedTransaction(async (tx) => {
      await tx.sql(insert, [3], { prepare: true });
      tx.commitWith(tx.sql(insert, [3], { prepare: true }));
      return 'done';
    }),
    { code: '23505' },
    'the unique violation, SQLSTATE kept',
  );
  t.same(await stored(db), [], 'the first insert was rolled back with it');
});

t.test('fn throws: the statements before are rolled back', async (t) => {
  const db = await testDatabase(t);
  await table(db);
  await t.rejects(
    db.pipelinedTransaction(async (tx) => {
      await tx.sql(insert, [4]);
      throw new Error('caller gave up');
    }),
    /caller gave up/,
  );
  t.same(await stored(db), [], 'nothing kept');
  // A failed statement fn did not wait for, then fn failing for another reason.
  await t.rejects(
    db.pipelinedTransaction(async (tx) => {
      void tx.sql(insert, [500]).catch(() => undefined);
      await tx.sql(insert, [5]);
      return 'unreachable';
    }),
    { code: '25P02' },
    'statements behind a failed one fail: the transaction is aborted',
  );
  t.same(await stored(db), [], 'still nothing kept');
});

t.test('a failed statement fn neither waited for nor handed over: the transaction throws, not commits', async (t) => {
  const db = await testDatabase(t);
  await table(db);
  await t.rejects(
    db.pipelinedTransaction(async (tx) => {
      await tx.sql(insert, [8]);
      void tx.sql(insert, [800]).catch(() => undefined);
      return 'looks done';
    }),
    db.kind === 'postgres' ? /ended with ROLLBACK, not COMMIT/ : { code: '25P02' },
  );
  t.same(await stored(db), [], 'nothing kept');
});

t.test('a constraint that fails at COMMIT: the transaction throws and keeps nothing', async (t) => {
  const db = await testDatabase(t);
  await table(db);
  await t.rejects(
    db.pipelinedTransaction(async (tx) => {
      await tx.sql(insert, [6]);
      tx.commitWith(tx.sql(`INSERT INTO pipelined_child (n) VALUES ($1)`, [7], { prepare: true }));
    }),
    { code: '23503' },
    'the deferred foreign key fails at COMMIT',
  );
  t.same(await stored(db), [], 'the insert before it is not kept');
  t.same(await stored(db, 'pipelined_child'), [], 'nor the child row');
});

t.test('connections go back to the pool after commits and failures alike', async (t) => {
  const db = await testDatabase(t, { maxConnections: 2 });
  await table(db);
  // Twelve transactions through a pool of two, half of them failing: a connection kept
  // reserved by one would leave the rest waiting forever (the test's timeout).
  for (let n = 10; n < 22; n++) {
    const run = db.pipelinedTransaction(async (tx) => {
      await tx.sql(insert, [n], { prepare: true });
      if (n % 2 === 1) throw new Error(`odd ${n}`);
      return n;
    });
    if (n % 2 === 1) await t.rejects(run, new RegExp(`odd ${n}`));
    else t.equal(await run, n);
  }
  t.same(await stored(db), [10, 12, 14, 16, 18, 20], 'the even ones committed, the odd ones not');
  t.same(await db.sql<{ one: number }>(`SELECT 1 AS one`), [{ one: 1 }], 'the pool still answers');
});

t.test('inside a transaction it is a savepoint with the same meaning', async (t) => {
  const db = await testDatabase(t);
  await table(db);
  await db.transaction(async (outer) => {
    await outer.sql(insert, [30]);
    await t.rejects(
      outer.pipelinedTransaction(async (tx) => {
        await tx.sql(insert, [31]);
        tx.commitWith(tx.sql(insert, [31]));
      }),
      { code: '23505' },
    );
    await outer.pipelinedTransaction(async (tx) => {
      tx.commitWith(tx.sql(insert, [32]));
    });
  });
  t.same(await stored(db), [30, 32], 'the failed inner one was undone alone');
});
