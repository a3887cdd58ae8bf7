/**
 * The collectors' field lengths are written once (schema.ts COLLECTOR_FIELD_LIMITS): the
 * columns must hold exactly what the schemas and the dashboard form accept, no less (a 500
 * from PostgreSQL) and no more (a form that offers what the server refuses).
 */
import t from 'tap';
import { testDatabase } from '../db/database.test-helper.ts';
import { COLLECTOR_FIELD_LIMITS } from './schema.ts';
import { createCollectorBodySchema } from '../admin/schema.ts';

const db = await testDatabase(t);

t.test('the columns are as long as the limits', async (t) => {
  const rows = await db.sql<{ column_name: string; n: number }>(
    `SELECT column_name, character_maximum_length AS n FROM information_schema.columns
     WHERE table_name = 'collectors' AND column_name IN ('site_name', 'site_address', 'suspend_reason')`,
  );
  const size = Object.fromEntries(rows.map((r) => [r.column_name, Number(r.n)]));
  t.equal(size.site_name, COLLECTOR_FIELD_LIMITS.siteName);
  t.equal(size.site_address, COLLECTOR_FIELD_LIMITS.siteAddress);
  t.equal(size.suspend_reason, COLLECTOR_FIELD_LIMITS.reason);
});

t.test('the API schema takes the longest and refuses one more', async (t) => {
  const name = 'N'.repeat(COLLECTOR_FIELD_LIMITS.siteName);
  t.ok(createCollectorBodySchema.safeParse({ site_name: name }).success);
  t.notOk(createCollectorBodySchema.safeParse({ site_name: `${name}N` }).success);
  const address = 'A'.repeat(COLLECTOR_FIELD_LIMITS.siteAddress);
  t.ok(createCollectorBodySchema.safeParse({ site_name: 'x', site_address: address }).success);
  t.notOk(createCollectorBodySchema.safeParse({ site_name: 'x', site_address: `${address}A` }).success);
});
