import { pgTable, primaryKey, varchar } from 'drizzle-orm/pg-core';

/**
 * Each distinct plate's deletion neighbourhood over its confusion key (0025): the key and
 * every copy with one character removed. Written after commit by the key builder
 * (hub/src/search/key-builder.ts, migration 0038); read by the one-edit search
 * (hub/src/search/one-edit-search.ts).
 */
export const plateEditKeys = pgTable(
  'plate_edit_keys',
  {
    editKey: varchar('edit_key', { length: 20 }).notNull(),
    plateNormalized: varchar('plate_normalized', { length: 20 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.editKey, t.plateNormalized] })],
);
