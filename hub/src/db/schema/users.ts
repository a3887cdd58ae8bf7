import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timestamptz } from './columns.ts';

export const userRoles = ['admin', 'operator', 'viewer'] as const;
export const userRoleSchema = z.enum(userRoles);
export type UserRole = z.infer<typeof userRoleSchema>;

/** Login is by email, unique case-insensitively (index on lower(email) in 0002). */
export const users = pgTable('users', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  role: text('role', { enum: userRoles }).notNull(),
  isActive: boolean('is_active').notNull().default(true),
  twofaRequired: boolean('twofa_required').notNull().default(true),
  twofaEnrolled: boolean('twofa_enrolled').notNull().default(false),
  twofaEnrolledAt: timestamptz('twofa_enrolled_at'),
  /** Sessions issued before this instant are refused (migration 0010). */
  sessionsValidAfter: timestamptz('sessions_valid_after'),
  /** Set with an admin-issued one-time password; cleared by the user's own change. */
  mustChangePassword: boolean('must_change_password').notNull().default(false),
  /** Sees every site (migration 0040); false: only the sites in user_sites (docs/sites.md). */
  allSites: boolean('all_sites').notNull().default(true),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
