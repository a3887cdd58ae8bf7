import { char, pgTable, uuid } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

/**
 * Head of each collector's hash chain. Appends lock this row FOR UPDATE, so concurrent
 * batches of one collector serialize (see db/chain.ts).
 */
export const collectorChainHeads = pgTable('collector_chain_heads', {
  collectorId: uuid('collector_id')
    .primaryKey()
    .references(() => collectors.id),
  lastSeq: bigintString('last_seq').notNull().default('0'),
  lastHash: char('last_hash', { length: 64 }).notNull(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
