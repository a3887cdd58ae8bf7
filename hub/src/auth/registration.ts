import { z } from 'zod';
import { writeAudit } from '../platform/audit-writer.ts';
import { userRoleSchema, type UserRole } from '../db/schema/users.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN } from './passwords.ts';
import { findUserByEmail, insertUser, normalizeEmail, type UserRow } from './users.ts';

export const emailSchema = z.string().trim().min(3).max(320).email();
export const passwordSchema = z.string().min(PASSWORD_MIN, `password must be at least ${PASSWORD_MIN} characters`).max(PASSWORD_MAX);

/** One answer for every registration, so the endpoint cannot tell which emails exist. */
export const REGISTER_ACCEPTED = 'Registration received. An administrator must approve the account before you can sign in.';
/** Same for reset requests. */
export const RESET_ACCEPTED = 'If an account exists for this address, an administrator has been asked to reset its password.';

/**
 * `POST /auth/register`: an inactive `viewer` account awaiting admin approval
 * (`npm run hub -- user activate`). A taken email changes nothing and gets the same 202;
 * the password is hashed either way so timing does not tell the cases apart.
 */
export async function register(ctx: AuthContext, input: { email: string; password: string }, meta: RequestMeta): Promise<void> {
  const now = ctx.clock.now();
  const passwordHash = await hashPassword(input.password);
  const created = await insertUser(ctx.db, { email: input.email, passwordHash, role: 'viewer', isActive: false, at: now });
  await writeAudit(ctx.db, {
    at: now,
    action: created ? 'auth.registered' : 'auth.register_duplicate',
    actor: { userId: created?.id ?? null },
    targetType: 'user',
    targetId: created?.id ?? null,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail: { email: normalizeEmail(input.email), awaiting_approval: created !== null },
  });
}

/**
 * `POST /auth/forgot-password`: no email is sent (the hub has no mail transport); the
 * request is an audit row `auth.password_reset_requested` that admins list with
 * `npm run hub -- user reset-requests` and act on with `user reset-password`. Unknown
 * addresses are audited too (without a target) and answered identically.
 */
export async function requestPasswordReset(ctx: AuthContext, input: { email: string }, meta: RequestMeta): Promise<void> {
  const now = ctx.clock.now();
  const user = await findUserByEmail(ctx.db, input.email);
  await writeAudit(ctx.db, {
    at: now,
    action: 'auth.password_reset_requested',
    actor: { userId: null },
    targetType: 'user',
    targetId: user?.id ?? null,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail: { email: normalizeEmail(input.email), known: user !== undefined },
  });
}

/** CLI / admin: create an active user with a chosen role. Null when the email is taken. */
export async function createUser(ctx: AuthContext, input: { email: string; password: string; role: UserRole }): Promise<UserRow | null> {
  const email = emailSchema.parse(input.email);
  const role = userRoleSchema.parse(input.role);
  const password = passwordSchema.parse(input.password);
  const now = ctx.clock.now();
  const user = await insertUser(ctx.db, { email, passwordHash: await hashPassword(password), role, isActive: true, at: now });
  if (user) {
    await writeAudit(ctx.db, { at: now, action: 'user.created', targetType: 'user', targetId: user.id, detail: { email: user.email, role, via: 'cli' } });
  }
  return user;
}
