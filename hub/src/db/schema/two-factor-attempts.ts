import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { bigintString, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const twoFactorAttemptTypes = ['totp', 'backup_code', 'setup'] as const;
export const twoFactorAttemptTypeSchema = z.enum(twoFactorAttemptTypes);

export const twoFactorAttempts = pgTable(
  'two_factor_attempts',
  {
    id: bigintString('id')
      .primaryKey()
      .default(sql`nextval('two_factor_attempts_id_seq')`),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    attemptType: text('attempt_type', { enum: twoFactorAttemptTypes }).notNull(),
    success: boolean('success').notNull(),
    ipAddress: varchar('ip_address', { length: 45 }),
    userAgent: text('user_agent'),
    failureReason: text('failure_reason'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [index('two_factor_attempts_user_created_idx').on(t.userId, t.createdAt)],
);
