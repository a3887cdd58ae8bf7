/**
 * The embedded database's VACUUM (embedded-vacuum.ts): on PGlite, where autovacuum never
 * runs, a claim of the alert queue reads every page the queue ever filled (without
 * statistics the planner scans the table; with them, the index walks past the settled items);
 * after the pass it reads only what is open. On PostgreSQL the pass does nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { claimItems, completeItems } from '../alerts/queue.ts';
import { createLog } from '../platform/log.ts';
import { openDatabase } from './client.ts';
import { testDatabase } from './database.test-helper.ts';
import { CHURNED_TABLES, vacuumEmbedded } from './embedded-vacuum.ts';
import type { DbSession } from './session.ts';

/**
 * Index and table pages one claim of 100 reads (EXPLAIN's shared buffer hits and reads), on
 * the claim's own index, as PostgreSQL plans it: before a pass PGlite has no statistics and
 * its planner may take another path, whose pages would not compare.
 */
async function claimPages(db: DbSession): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.sql(`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`);
    const rows = await tx.sql<Record<string, string>>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       SELECT id FROM alert_queue WHERE status = 'pending' AND (attempts = 0 OR next_retry_at <= now())
       ORDER BY created_at, id LIMIT 100 FOR UPDATE SKIP LOCKED`,
    );
    // The plan comes as parsed JSON from postgres.js and as text from PGlite.
    const plan: unknown = Object.values(rows[0] ?? {})[0];
    const top = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: Record<string, number> }>;
    const node = top[0]?.Plan ?? {};
    return (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
  });
}

t.test('on PGlite a claim reads past the settled items until the pass, then only what is open', { timeout: 300_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-embedded-vacuum-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = await openDatabase({ dataDir: join(dir, 'pglite'), log: createLog('silent') });
  t.teardown(() => db.close());
  // Queue items without reads behind them: the test is about the queue's own pages, so the
  // foreign keys to detection_keys are switched off for this session's inserts.
  await db.transaction(async (tx) => {
    await tx.sql(`SET LOCAL session_replication_role = replica`);
    await tx.sql(
      `INSERT INTO alert_queue (detection_id, plate_normalized, status, created_at)
       SELECT g, 'P' || g, 'pending', now() + g * interval '1 ms' FROM generate_series(1, 30100) AS g`,
    );
  });
  // 30,000 items claimed and settled as the worker does it, 100 at a time.
  for (let i = 0; i < 300; i++) {
    const claimed = await claimItems(db, 100, new Date());
    await db.transaction((tx) =>
      completeItems(
        tx,
        claimed.map((c) => c.id),
      ),
    );
  }
  const before = await claimPages(db);
  // A claim of 100 items costs about 200 page visits on its own (each row fetched, then
  // locked) plus the index pages it walks; before the pass those hold 30,000 settled items.
  t.ok(before > 500, `before the pass a claim read ${before} pages for 100 open items`);
  t.equal(await vacuumEmbedded(db), CHURNED_TABLES.length, 'the pass vacuumed every churned table');
  const after = await claimPages(db);
  t.ok(after < 250, `after it ${after} pages: the 100 open items and a few index pages`);
  const [left] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM alert_queue WHERE status = 'pending'`);
  t.equal(left?.n, 100, 'the open items are all still there');
});

t.test('on PostgreSQL the pass leaves the work to autovacuum', async (t) => {
  if (!process.env['DATABASE_URL'] || process.env['ALPR_E2E_DATABASE'] === 'pglite') {
    t.comment('no PostgreSQL here (DATABASE_URL unset or PGlite forced): the PGlite case above is the one that matters');
    return;
  }
  const db = await testDatabase(t);
  t.equal(await vacuumEmbedded(db), 0);
});
