import { eq, sql } from 'drizzle-orm';
import { users, type UserRole } from '../db/schema/users.ts';
import type { DbSession } from '../db/session.ts';
import { isUuid } from '@alpr/shared/validation/uuid';

export type UserRow = typeof users.$inferSelect;

/** Emails compare case-insensitively (unique index on lower(email), migration 0002). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: DbSession, email: string): Promise<UserRow | undefined> {
  const rows = await db.db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${normalizeEmail(email)}`)
    .limit(1);
  return rows[0];
}

export async function findUserById(db: DbSession, id: string): Promise<UserRow | undefined> {
  if (!isUuid(id)) return undefined;
  const rows = await db.db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0];
}

export interface NewUser {
  email: string;
  passwordHash: string;
  role: UserRole;
  isActive: boolean;
  at: Date;
}

/** Null when the email is taken (the unique index decides, so two racing creates are safe). */
export async function insertUser(db: DbSession, user: NewUser): Promise<UserRow | null> {
  const rows = await db.db
    .insert(users)
    .values({
      email: normalizeEmail(user.email),
      passwordHash: user.passwordHash,
      role: user.role,
      isActive: user.isActive,
      createdAt: user.at,
      updatedAt: user.at,
    })
    .onConflictDoNothing()
    .returning();
  return rows[0] ?? null;
}
