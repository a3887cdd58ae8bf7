import { sql } from 'drizzle-orm';
import { pgTable, uuid } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.ts';

/**
 * Ed25519 key pairs the hub signs commands and evidence manifests with. `retiredAt` is set
 * on rotation; a retired key still verifies what it signed.
 */
export const hubKeys = pgTable('hub_keys', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  publicKey: bytea('public_key').notNull().unique(),
  secretKey: bytea('secret_key').notNull(),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  retiredAt: timestamptz('retired_at'),
});
