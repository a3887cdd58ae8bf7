import { sql } from 'drizzle-orm';
import { boolean, char, index, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

/** SHA-256 hex of the full key in a unique column; the key itself is never stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    collectorId: uuid('collector_id')
      .notNull()
      .references(() => collectors.id),
    keyHash: char('key_hash', { length: 64 }).notNull().unique(),
    keyPrefix: varchar('key_prefix', { length: 10 }).notNull(),
    name: varchar('name', { length: 100 }),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    createdBy: uuid('created_by').notNull(),
    expiresAt: timestamptz('expires_at'),
    lastUsedAt: timestamptz('last_used_at'),
    lastUsedIp: varchar('last_used_ip', { length: 45 }),
    revokedAt: timestamptz('revoked_at'),
    revokedBy: uuid('revoked_by'),
    revokeReason: text('revoke_reason'),
  },
  (t) => [index('api_keys_collector_idx').on(t.collectorId)],
);
