import { and, desc, eq, gt } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { auditLog } from '../db/schema/audit-log.ts';
import { backupCodes } from '../db/schema/backup-codes.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import { users, type UserRole } from '../db/schema/users.ts';
import { HubError } from '../platform/errors.ts';
import type { AuthContext } from './context.ts';
import { hashPassword } from './passwords.ts';
import { passwordSchema } from './registration.ts';
import { findUserByEmail, type UserRow } from './users.ts';

/**
 * Account administration verbs (CLI today, admin routes later). `actorUserId` is the admin
 * doing it, or the CLI's system actor; every change is audited.
 */
async function mustFind(ctx: AuthContext, email: string): Promise<UserRow> {
  const user = await findUserByEmail(ctx.db, email);
  if (!user) throw new HubError('not_found', `no user with email ${email}`);
  return user;
}

async function audit(ctx: AuthContext, actorUserId: string, action: string, user: UserRow, detail: Record<string, unknown> = {}): Promise<void> {
  await writeAudit(ctx.db, {
    at: ctx.clock.now(),
    action,
    actor: { userId: actorUserId },
    targetType: 'user',
    targetId: user.id,
    detail: { email: user.email, ...detail },
  });
}

export async function listUsers(ctx: AuthContext): Promise<UserRow[]> {
  return ctx.db.db.select().from(users).orderBy(users.createdAt);
}

export async function setActive(ctx: AuthContext, actorUserId: string, email: string, isActive: boolean): Promise<UserRow> {
  const user = await mustFind(ctx, email);
  await ctx.db.db.update(users).set({ isActive, updatedAt: ctx.clock.now() }).where(eq(users.id, user.id));
  await audit(ctx, actorUserId, isActive ? 'user.activated' : 'user.deactivated', user);
  return { ...user, isActive };
}

export async function setRole(ctx: AuthContext, actorUserId: string, email: string, role: UserRole): Promise<UserRow> {
  const user = await mustFind(ctx, email);
  await ctx.db.db.update(users).set({ role, updatedAt: ctx.clock.now() }).where(eq(users.id, user.id));
  await audit(ctx, actorUserId, 'user.role_changed', user, { from: user.role, to: role });
  return { ...user, role };
}

/** The user lost both authenticator and backup codes: next login goes to setup again. */
export async function resetTwoFactor(ctx: AuthContext, actorUserId: string, email: string): Promise<UserRow> {
  const user = await mustFind(ctx, email);
  await ctx.db.transaction(async (tx) => {
    await tx.db.delete(userTwoFactor).where(eq(userTwoFactor.userId, user.id));
    await tx.db.delete(backupCodes).where(eq(backupCodes.userId, user.id));
    await tx.db.update(users).set({ twofaEnrolled: false, twofaEnrolledAt: null, updatedAt: ctx.clock.now() }).where(eq(users.id, user.id));
  });
  await audit(ctx, actorUserId, 'user.two_factor_reset', user);
  return { ...user, twofaEnrolled: false, twofaEnrolledAt: null };
}

export async function setPassword(ctx: AuthContext, actorUserId: string, email: string, password: string): Promise<UserRow> {
  const user = await mustFind(ctx, email);
  const hash = await hashPassword(passwordSchema.parse(password));
  await ctx.db.db.update(users).set({ passwordHash: hash, updatedAt: ctx.clock.now() }).where(eq(users.id, user.id));
  await audit(ctx, actorUserId, 'user.password_reset', user);
  return user;
}

/** Reset requests of known users from the last `days` days, newest first. */
export async function listResetRequests(ctx: AuthContext, days = 30): Promise<{ at: Date; userId: string | null; email: unknown; ip: string | null }[]> {
  const since = new Date(ctx.clock.now().getTime() - days * 86_400_000);
  const rows = await ctx.db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'auth.password_reset_requested'), gt(auditLog.at, since)))
    .orderBy(desc(auditLog.at));
  return rows.filter((r) => r.targetId !== null).map((r) => ({ at: r.at, userId: r.targetId, email: r.detail['email'], ip: r.ip }));
}
