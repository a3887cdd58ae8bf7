import { eq } from 'drizzle-orm';
import type { Test } from 'tap';
import { auditLog } from './schema/audit-log.ts';
import { hubKeys } from './schema/hub-keys.ts';
import type { Database } from './client.ts';
import type { DbSession } from './session.ts';

/**
 * What callers may rely on whichever backend they got. Run against PGlite by the smoke
 * test and against the real server by client.test.ts.
 */
export async function checkDriverContract(t: Test, session: DbSession): Promise<void> {
  const [raw] = await session.sql(
    `SELECT 1::int8 AS small, 9007199254740993::int8 AS big, now() AS ts, '\\x0102ff'::bytea AS bin,
            1.50::numeric(4,2) AS num, '{"a":[1,2]}'::jsonb AS doc, 'x'::text AS txt, 7::int AS i`,
  );
  t.ok(raw, 'raw query returns a row');
  if (!raw) return;
  t.equal(raw['small'], '1', 'int8 is a string');
  t.equal(raw['big'], '9007199254740993', 'int8 above 2^53 keeps every digit');
  t.ok(raw['ts'] instanceof Date, 'timestamptz is a Date');
  t.ok(Buffer.isBuffer(raw['bin']), 'bytea is a Buffer');
  t.same([...(raw['bin'] as Buffer)], [1, 2, 255]);
  t.equal(raw['num'], '1.50', 'numeric is an exact string');
  t.same(raw['doc'], { a: [1, 2] }, 'jsonb is parsed');
  t.equal(raw['i'], 7, 'int4 is a number');

  const at = new Date('2031-02-03T04:05:06.789Z');
  const [params] = await session.sql(
    `SELECT $1::timestamptz AS at, $2::int8 + 1 AS next, ($3::jsonb) ->> 'k' AS k, 'b' = ANY($4::text[]) AS found, $1::timestamptz AS again`,
    [at, 9007199254740993n, { k: 'v' }, ['a', 'b']],
  );
  t.same(params?.['at'], at, 'Date parameter round-trips to the millisecond');
  t.equal(params?.['next'], '9007199254740994', 'bigint parameter');
  t.equal(params?.['k'], 'v', 'object parameter is sent as JSON');
  t.equal(params?.['found'], true, 'array parameter');
  t.same(params?.['again'], at, 'a placeholder may repeat');
  await t.rejects(session.sql('SELECT $2::int', [1]), /parameter/, 'missing parameter is refused before the server');
  await checkPreparedQueries(t, session, at);

  // drizzle: bigint ids as strings, bytea as Buffer, timestamps as Date.
  const [entry] = await session.db
    .insert(auditLog)
    .values({ action: 'contract.check', detail: { n: 1 } })
    .returning();
  t.type(entry?.id, 'string', 'bigserial id comes back as a string');
  t.ok(entry?.at instanceof Date);
  const publicKey = Buffer.alloc(32, 7);
  const [key] = await session.db
    .insert(hubKeys)
    .values({ publicKey, secretKey: Buffer.alloc(64, 9) })
    .returning();
  t.ok(key && Buffer.isBuffer(key.publicKey) && key.publicKey.equals(publicKey), 'bytea column round-trips');

  // Transactions: a throw rolls back; a nested transaction is a savepoint.
  await t.rejects(
    session.transaction(async (tx) => {
      t.equal(tx.inTransaction, true);
      await tx.db.delete(hubKeys).where(eq(hubKeys.publicKey, publicKey));
      throw new Error('abort');
    }),
    /abort/,
  );
  t.equal((await session.db.select().from(hubKeys).where(eq(hubKeys.publicKey, publicKey))).length, 1, 'rolled back');
  await session.transaction(async (tx) => {
    await tx.transaction(async (inner) => {
      await inner.db.insert(hubKeys).values({ publicKey: Buffer.alloc(32, 8), secretKey: Buffer.alloc(64) });
    });
    await tx
      .transaction(async (inner) => {
        await inner.db.insert(hubKeys).values({ publicKey: Buffer.alloc(32, 6), secretKey: Buffer.alloc(64) });
        throw new Error('inner abort');
      })
      .catch(() => undefined);
  });
  const keys = await session.sql<{ first: number }>('SELECT get_byte(public_key, 0) AS first FROM hub_keys ORDER BY 1');
  t.same(
    keys.map((k) => k.first),
    [7, 8],
    'inner savepoint kept the committed part and dropped the failed part',
  );
}

/**
 * LISTEN/NOTIFY, which the alert worker, the watchlist cache and the live channel rely on:
 * a committed NOTIFY arrives, a rolled-back one never does, and unlisten stops delivery.
 */
export async function checkListenContract(t: Test, database: Database): Promise<void> {
  const received: string[] = [];
  let wake: () => void = () => undefined;
  const stop = await database.listen('contract_check', (payload) => {
    received.push(payload);
    wake();
  });
  const next = () => new Promise<void>((resolve) => (wake = resolve));

  let arrived = next();
  await database.sql(`SELECT pg_notify('contract_check', 'one')`);
  await arrived;
  await database
    .transaction(async (tx) => {
      await tx.sql(`SELECT pg_notify('contract_check', 'rolled back')`);
      throw new Error('abort');
    })
    .catch(() => undefined);
  arrived = next();
  await database.transaction(async (tx) => {
    await tx.sql(`SELECT pg_notify('contract_check', 'two')`);
  });
  await arrived;
  t.same(received, ['one', 'two'], 'committed payloads arrive in order; a rolled-back NOTIFY never does');

  await stop();
  await database.sql(`SELECT pg_notify('contract_check', 'after unlisten')`);
  // A round trip on the same backend after the NOTIFY: anything still coming would be here.
  await database.sql('SELECT 1');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(received, ['one', 'two'], 'nothing after unlisten');
}

/**
 * `prepare: true` (raw.ts QueryOptions) gives the same rows and checks as an unprepared
 * query, and on PostgreSQL really leaves one named statement on the connection, reused.
 */
async function checkPreparedQueries(t: Test, session: DbSession, at: Date): Promise<void> {
  const text = `SELECT $1::timestamptz AS at, $2::int8 + 1 AS next, ($3::jsonb) ->> 'k' AS k, $4::text AS nothing, 'prepared contract' AS tag`;
  const params = [at, 9007199254740993n, { k: 'v' }, null];
  const plain = await session.sql(text, params);
  const first = await session.sql(text, params, { prepare: true });
  const again = await session.sql(text, params, { prepare: true });
  t.same(first, plain, 'a prepared query returns what the unprepared one does');
  t.same(again, plain, 'and so does its reuse');
  await t.rejects(session.sql('SELECT $2::int', [1], { prepare: true }), /parameter/, 'prepared: a missing parameter is refused too');
  await t.rejects(session.sql('SELECT 1/$1::int', [0], { prepare: true }), { code: '22012' }, 'prepared: the server error keeps its code');
  if (session.kind !== 'postgres') return;
  // pg_prepared_statements lists the statements of the connection asking, so ask inside
  // one transaction: the prepared statement must be there once, whatever the reuse count.
  await session.transaction(async (tx) => {
    const probe = `SELECT $1::int AS n, 'prepared probe' AS tag`;
    await tx.sql(probe, [1], { prepare: true });
    await tx.sql(probe, [2], { prepare: true });
    const [named] = await tx.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1`, [probe]);
    t.equal(named?.n, 1, 'PostgreSQL: one named statement, prepared once and reused');
    await tx.sql(`SELECT $1::int AS n, 'unprepared probe' AS tag`, [1]);
    const [unnamed] = await tx.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%unprepared probe%' AND statement NOT LIKE '%pg_prepared_statements%'`,
    );
    t.equal(unnamed?.n, 0, 'PostgreSQL: a query without the option leaves nothing prepared');
  });
}
