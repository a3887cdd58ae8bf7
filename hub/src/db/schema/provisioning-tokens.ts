import { sql } from 'drizzle-orm';
import { char, pgTable, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

/** `prov_` tokens, stored as SHA-256 hex; single use, 1 hour. */
export const provisioningTokens = pgTable('provisioning_tokens', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  collectorId: uuid('collector_id')
    .notNull()
    .references(() => collectors.id),
  tokenHash: char('token_hash', { length: 64 }).notNull().unique(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  createdBy: uuid('created_by').notNull(),
});
