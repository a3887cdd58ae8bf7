import { and, eq, ne } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { backupCodes } from '../db/schema/backup-codes.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import { users, type UserRole } from '../db/schema/users.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import type { AuthContext } from './context.ts';
import { generatePassword, hashPassword } from './passwords.ts';
import { findUserById, insertUser, type UserRow } from './users.ts';

/**
 * Account administration over HTTP (docs/admin-api.md "Users"), by user id. Every change is
 * audited in its own transaction; changes that take rights away (deactivate, 2FA reset,
 * new one-time password) also end the user's sessions at once. Two guards keep the hub
 * administrable: the last active admin cannot be deactivated or demoted, and an admin
 * cannot deactivate or demote themself.
 */
export interface AccountActor {
  userId: string;
}

async function mustFind(db: DbSession, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw new HubError('not_found', 'no such user');
  return user;
}

async function audit(tx: DbSession, at: Date, actor: AccountActor, action: string, user: UserRow, detail: Record<string, unknown> = {}): Promise<void> {
  await writeAudit(tx, { at, action, actor: { userId: actor.userId }, targetType: 'user', targetId: user.id, detail: { email: user.email, ...detail } });
}

/** Refuses a change that would leave no active admin (or has an admin lock themself out). */
async function keepAnAdmin(tx: DbSession, actor: AccountActor, user: UserRow, what: string): Promise<void> {
  if (user.id === actor.userId) throw new HubError('conflict', `you cannot ${what} your own account; ask another admin`);
  if (user.role !== 'admin' || !user.isActive) return;
  const others = await tx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.role, 'admin'), eq(users.isActive, true), ne(users.id, user.id)))
    .limit(1);
  if (others.length === 0) throw new HubError('conflict', `cannot ${what} the last active admin`);
}

export async function listAccounts(ctx: AuthContext): Promise<UserRow[]> {
  return ctx.db.db.select().from(users).orderBy(users.createdAt, users.id);
}

export async function getAccount(ctx: AuthContext, id: string): Promise<UserRow> {
  return mustFind(ctx.db, id);
}

/**
 * A new active account with a one-time password, returned here once. The user signs in
 * with it, enrolls the second factor, and must then change it before anything else
 * (`must_change_password`).
 */
export async function createAccount(
  ctx: AuthContext,
  actor: AccountActor,
  input: { email: string; role: UserRole },
): Promise<{ user: UserRow; oneTimePassword: string }> {
  const oneTimePassword = generatePassword();
  const passwordHash = await hashPassword(oneTimePassword);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const inserted = await insertUser(tx, { email: input.email, passwordHash, role: input.role, isActive: true, at: now });
    if (!inserted) throw new HubError('conflict', 'a user with this email already exists');
    await tx.db.update(users).set({ mustChangePassword: true }).where(eq(users.id, inserted.id));
    const user = { ...inserted, mustChangePassword: true };
    await audit(tx, now, actor, 'user.created', user, { role: input.role, one_time_password: true });
    return { user, oneTimePassword };
  });
}

export async function setAccountRole(ctx: AuthContext, actor: AccountActor, id: string, role: UserRole): Promise<UserRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await tx.sql('SELECT pg_advisory_xact_lock(hashtext($1))', ['accounts:admins']);
    const user = await mustFind(tx, id);
    if (user.role === role) return user;
    if (user.role === 'admin') await keepAnAdmin(tx, actor, user, 'demote');
    await tx.db.update(users).set({ role, updatedAt: now }).where(eq(users.id, user.id));
    await audit(tx, now, actor, 'user.role_changed', user, { from: user.role, to: role });
    return { ...user, role };
  });
}

export async function setAccountActive(ctx: AuthContext, actor: AccountActor, id: string, isActive: boolean): Promise<UserRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await tx.sql('SELECT pg_advisory_xact_lock(hashtext($1))', ['accounts:admins']);
    const user = await mustFind(tx, id);
    if (user.isActive === isActive) return user;
    if (!isActive) await keepAnAdmin(tx, actor, user, 'deactivate');
    // A deactivated account's sessions end now; reactivation does not revive them.
    await tx.db
      .update(users)
      .set({ isActive, updatedAt: now, ...(isActive ? {} : { sessionsValidAfter: now }) })
      .where(eq(users.id, user.id));
    await audit(tx, now, actor, isActive ? 'user.activated' : 'user.deactivated', user);
    return { ...user, isActive };
  });
}

/** Lost authenticator and backup codes: enrollment again at next login; sessions end now. */
export async function resetAccountTwoFactor(ctx: AuthContext, actor: AccountActor, id: string): Promise<UserRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await mustFind(tx, id);
    await tx.db.delete(userTwoFactor).where(eq(userTwoFactor.userId, user.id));
    await tx.db.delete(backupCodes).where(eq(backupCodes.userId, user.id));
    await tx.db.update(users).set({ twofaEnrolled: false, twofaEnrolledAt: null, sessionsValidAfter: now, updatedAt: now }).where(eq(users.id, user.id));
    await audit(tx, now, actor, 'user.two_factor_reset', user, { sessions_ended: true });
    return { ...user, twofaEnrolled: false, twofaEnrolledAt: null };
  });
}

/** A forgotten password: a new one-time password (shown once), sessions end now. */
export async function resetAccountPassword(ctx: AuthContext, actor: AccountActor, id: string): Promise<{ user: UserRow; oneTimePassword: string }> {
  const oneTimePassword = generatePassword();
  const passwordHash = await hashPassword(oneTimePassword);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await mustFind(tx, id);
    await tx.db.update(users).set({ passwordHash, mustChangePassword: true, sessionsValidAfter: now, updatedAt: now }).where(eq(users.id, user.id));
    await audit(tx, now, actor, 'user.password_reset', user, { one_time_password: true, sessions_ended: true });
    return { user: { ...user, mustChangePassword: true }, oneTimePassword };
  });
}

/** Admin "sign out everywhere" for a user (a lost laptop, a departing employee). */
export async function endAccountSessions(ctx: AuthContext, actor: AccountActor, id: string): Promise<UserRow> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await mustFind(tx, id);
    await tx.db.update(users).set({ sessionsValidAfter: now, updatedAt: now }).where(eq(users.id, user.id));
    await audit(tx, now, actor, 'user.sessions_ended', user);
    return user;
  });
}
