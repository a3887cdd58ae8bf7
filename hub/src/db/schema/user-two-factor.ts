import { boolean, integer, pgTable, uuid } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.ts';
import { users } from './users.ts';

/**
 * One TOTP secret per user: ciphertext (nonce included) plus the per-user 16-byte salt;
 * `pending` until the first code verifies; `lastUsedStep` (unix time / 30 s) blocks replay.
 */
export const userTwoFactor = pgTable('user_two_factor', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretCiphertext: bytea('secret_ciphertext').notNull(),
  salt: bytea('salt').notNull(),
  pending: boolean('pending').notNull().default(true),
  lastUsedStep: integer('last_used_step'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  verifiedAt: timestamptz('verified_at'),
});
