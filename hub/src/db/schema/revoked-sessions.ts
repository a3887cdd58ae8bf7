import { pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';

/** Sessions ended by logout (migration 0010); a row lives until the session's own expiry. */
export const revokedSessions = pgTable('revoked_sessions', {
  sessionId: text('session_id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id),
  revokedAt: timestamptz('revoked_at').notNull(),
  expiresAt: timestamptz('expires_at').notNull(),
});
