import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import t from 'tap';
import { createLog } from '../platform/log.ts';
import { openDatabase } from './client.ts';
import { loadMigrations, type Migration } from './migrate.ts';
import { ensureUpcomingPartitions } from './partitions.ts';
import type { DbSession } from './session.ts';
import { testDatabase } from './database.test-helper.ts';

/** A catalog fingerprint: tables, indexes, triggers, functions and the app role's grants. */
async function catalog(session: DbSession): Promise<string[]> {
  const rows = await session.sql<{ item: string }>(`
    SELECT concat_ws(' ', 'relation', relname, relkind) AS item FROM pg_class
      WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'S', 'i', 'I')
    UNION ALL SELECT concat_ws(' ', 'trigger', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT concat_ws(' ', 'function', proname) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT concat_ws(' ', 'grant', table_name, privilege_type) FROM information_schema.role_table_grants
      WHERE grantee = 'alpr_app'
    ORDER BY 1`);
  return rows.map((r) => r.item);
}

function probe(version: string, sql: string): Migration {
  return { version, name: 'probe', sql, checksum: version.padStart(64, '0') };
}

t.test('migrations', async (t) => {
  const db = await testDatabase(t, { fromScratch: true });
  const log = createLog('silent');
  const all = await loadMigrations();
  const names = all.map((m) => `${m.version}_${m.name}`);
  t.ok(all.length >= 8);
  t.same(db.migrations.applied, names, 'a fresh database gets every file, in numeric order');

  await t.test('a second start applies nothing', async (t) => {
    t.same(await db.migrate(), { applied: [], alreadyApplied: all.length });
    t.equal((await db.sql('SELECT version FROM schema_migrations')).length, all.length, 'each version recorded once');
  });

  await t.test('the SQL itself is idempotent: running every file again changes nothing', async (t) => {
    const before = await catalog(db);
    t.ok(before.includes('trigger detections detections_write_once'), 'fingerprint sees triggers');
    t.ok(
      before.some((i) => i.startsWith('grant detections INSERT')),
      'fingerprint sees grants',
    );
    await db.sql('DELETE FROM schema_migrations');
    t.same((await db.migrate()).applied, names, 'all files ran again without error');
    t.same(await catalog(db), before, 'same relations, triggers, functions and grants');
  });

  await t.test('a failing migration rolls back whole and is not recorded', async (t) => {
    await t.rejects(db.migrate([probe('9001', 'CREATE TABLE probe_broken (id int); SELECT no_such_function();')]));
    t.same(await db.sql(`SELECT to_regclass('probe_broken')::text AS t`), [{ t: null }], 'table creation rolled back');
    t.same(await db.sql(`SELECT version FROM schema_migrations WHERE version = '9001'`), []);
    t.same((await db.migrate([probe('9002', 'CREATE TABLE probe_ok (id int); CREATE INDEX ON probe_ok (id);')])).applied, ['9002_probe']);
  });

  await t.test('an edited, already applied file is reported, not re-run', async (t) => {
    let output = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += chunk.toString();
        done();
      },
    });
    const edited = { ...probe('9002', 'DROP TABLE probe_ok;'), checksum: 'e'.repeat(64) };
    const report = await db.migrate([edited], createLog('warn', sink));
    t.same(report, { applied: [], alreadyApplied: 1 });
    t.match(output, /applied migration file has changed/);
    t.same(await db.sql(`SELECT to_regclass('probe_ok')::text AS t`), [{ t: 'probe_ok' }], 'not re-run');
  });

  await t.test('the hub starts as alpr_app once the owner has migrated', async (t) => {
    if (db.kind !== 'postgres' || !db.url) {
      t.comment('needs the real server (a second login); runs under CI with DATABASE_URL');
      return;
    }
    const role = `alpr_test_hub_${randomBytes(4).toString('hex')}`;
    await db.sql(`CREATE ROLE ${role} LOGIN IN ROLE alpr_app`);
    await db.sql(`ALTER ROLE ${role} SET role = 'alpr_app'`);
    t.teardown(() => db.sql(`DROP ROLE ${role}`));
    const url = new URL(db.url);
    url.username = role;
    const asApp = await openDatabase({ url: url.toString(), log, maxConnections: 1 });
    t.same(asApp.migrations.applied, [], 'nothing to apply');
    t.same(await asApp.sql('SELECT current_user AS u'), [{ u: 'alpr_app' }]);
    t.equal(await ensureUpcomingPartitions(asApp, new Date('2052-01-15T00:00:00Z')), 6, 'partitions via SECURITY DEFINER');
    await t.rejects(asApp.sql('DELETE FROM audit_log'), /permission denied/);
    await t.rejects(asApp.sql('SELECT * FROM detections_default'), /permission denied/, 'no direct partition access');
    await asApp.close();
  });

  await t.test('two processes starting together apply each file once', async (t) => {
    if (db.kind !== 'postgres' || !db.url) {
      t.comment('needs the real server (PGlite has one connection); runs under CI with DATABASE_URL');
      return;
    }
    await db.sql('DELETE FROM schema_migrations');
    const [a, b] = await Promise.all([openDatabase({ url: db.url, log, maxConnections: 2 }), openDatabase({ url: db.url, log, maxConnections: 2 })]);
    const applied = [...a.migrations.applied, ...b.migrations.applied].sort();
    t.same(applied, names, 'every file applied exactly once between the two');
    t.equal(a.migrations.alreadyApplied + b.migrations.alreadyApplied, all.length);
    await Promise.all([a.close(), b.close()]);
  });
});
