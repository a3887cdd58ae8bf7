/**
 * Every drizzle table mirror in schema/ against what the migrations build: the tables, and
 * each column's name, type and nullability, read back from a freshly migrated database. The
 * migrations are the truth (they run on every start); a mirror that drifts from them would
 * type queries against columns that are not there, or miss a NOT NULL the database enforces.
 */
import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import t from 'tap';
import * as schema from './schema/index.ts';
import { testDatabase } from './database.test-helper.ts';

interface Column {
  type: string;
  nullable: boolean;
}

/** drizzle's spelling of a type in PostgreSQL's own (format_type). */
function canonical(sqlType: string): string {
  return sqlType
    .replace(/\s*,\s*/g, ',')
    .replace(/\s+\(/g, '(')
    .replace(/^varchar/, 'character varying')
    .replace(/^char\b/, 'character')
    .replace(/^timestamp$/, 'timestamp without time zone')
    .replace(/^time$/, 'time without time zone')
    .replace(/^bigserial$/, 'bigint')
    .replace(/^serial$/, 'integer')
    .replace(/^smallserial$/, 'smallint');
}

const mirrors: PgTable[] = [];
for (const value of Object.values(schema) as unknown[]) if (is(value, PgTable)) mirrors.push(value);

t.test('every drizzle mirror matches the migrated tables', async (t) => {
  const db = await testDatabase(t);
  // information_schema for the tables, names and nullability; format_type for the type with
  // its modifiers (varchar length, numeric precision), which information_schema splits up.
  const rows = await db.sql<{ table_name: string; column_name: string; is_nullable: string; type: string }>(
    `SELECT c.table_name, c.column_name, c.is_nullable, format_type(a.atttypid, a.atttypmod) AS type
     FROM information_schema.columns c
     JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
     WHERE c.table_schema = 'public'`,
  );
  const tables = new Map<string, Map<string, Column>>();
  for (const r of rows) {
    const columns = tables.get(r.table_name) ?? new Map<string, Column>();
    columns.set(r.column_name, { type: r.type, nullable: r.is_nullable === 'YES' });
    tables.set(r.table_name, columns);
  }

  t.ok(mirrors.length >= 15, `${mirrors.length} mirrors found`);
  for (const mirror of mirrors) {
    const config = getTableConfig(mirror);
    const actual = tables.get(config.name);
    if (!actual) {
      t.fail(`${config.name}: no such table after the migrations`);
      continue;
    }
    const expected = new Map(config.columns.map((c) => [c.name, { type: canonical(c.getSQLType()), nullable: !c.notNull }] as const));
    t.same([...expected.keys()].sort(), [...actual.keys()].sort(), `${config.name}: the same columns`);
    for (const [name, column] of expected) {
      const real = actual.get(name);
      if (real) t.same(column, real, `${config.name}.${name}: type and nullability`);
    }
  }
});

t.test('the type spelling is what PostgreSQL prints', async (t) => {
  t.equal(canonical('numeric(10, 8)'), 'numeric(10,8)');
  t.equal(canonical('varchar(45)'), 'character varying(45)');
  t.equal(canonical('timestamp with time zone'), 'timestamp with time zone');
  t.equal(canonical('bigserial'), 'bigint');
  t.equal(canonical('timestamp (3) with time zone'), 'timestamp(3) with time zone');
});
