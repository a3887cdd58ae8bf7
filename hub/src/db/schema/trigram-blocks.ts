import { boolean, integer, pgTable, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/**
 * Sealed trigram postings (0046, docs/search.md "Postings sealed in blocks"): one row per
 * trigram and run of up to 1,024 postings, newest first, as parallel arrays. Written only by
 * the database functions the sealer calls (hub/src/search/posting-blocks.ts) and by retention;
 * read by pattern searches (hub/src/search/postings-page.ts).
 */
export const trigramBlocks = pgTable('trigram_blocks', {
  trigram: text('trigram').notNull(),
  newestAt: at('newest_at').notNull(),
  newestId: bigintString('newest_id').notNull(),
  oldestAt: at('oldest_at').notNull(),
  level: smallint('level').notNull(),
  n: integer('n').notNull(),
  capturedAts: timestamptz('captured_ats').array().notNull(),
  ids: bigintString('ids').array().notNull(),
  collectorIds: uuid('collector_ids').array().notNull(),
  plates: text('plates').array().notNull(),
});

/** One row: every detection with id <= sealedPk has its postings in trigram_blocks (0046). */
export const trigramBlockSeal = pgTable('trigram_block_seal', {
  id: boolean('id').primaryKey().default(true),
  sealedPk: bigintString('sealed_pk').notNull(),
  sealedAt: timestamptz('sealed_at').notNull(),
});
