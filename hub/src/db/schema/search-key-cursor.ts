import { boolean, pgTable } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';

/**
 * The search key builder's cursor (0038, docs/search.md "Keys built after commit"): one row;
 * every detection with id <= lastPk has its trigram postings and its plate's one-edit keys.
 * Written with SQL by hub/src/search/key-builder.ts.
 */
export const searchKeyCursor = pgTable('search_key_cursor', {
  id: boolean('id').primaryKey().default(true),
  lastPk: bigintString('last_pk').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
});
