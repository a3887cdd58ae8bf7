import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';

/**
 * Where each pull runner stopped (vendor_a: last detection id; vendor_b: last timestamp),
 * so a restart resumes instead of re-reading or skipping. Key: the runner's camera key.
 */
export const cursors = sqliteTable('cursors', {
  key: text('key').primaryKey(),
  cursor: text('cursor').notNull(),
  updatedMs: integer('updated_ms').notNull(),
});

export const CURSORS_DDL = `
CREATE TABLE IF NOT EXISTS cursors (
  key TEXT PRIMARY KEY,
  cursor TEXT NOT NULL,
  updated_ms INTEGER NOT NULL
) WITHOUT ROWID;
`;
