import { sql } from 'drizzle-orm';
import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';

/**
 * One row per hit of a shared (multi-process) rate limit, counted by (key, at) over a
 * sliding window. UNLOGGED in SQL: losing recent hits in a crash is harmless.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    id: bigintString('id').primaryKey().default(sql`nextval('rate_limit_hits_id_seq')`),
    key: text('key').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
  },
  (t) => [index('rate_limit_hits_key_at_idx').on(t.key, t.at)],
);
