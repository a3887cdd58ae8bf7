import { writeAudit } from '../platform/audit-writer.ts';
import { accountWaitMs, clearLoginFailures, isKnownAddress, recordLoginFailure } from './account-throttle.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { verifyDummyPassword, verifyPassword } from './passwords.ts';
import { issuePartialToken } from './sessions.ts';
import { findUserByEmail } from './users.ts';

export interface LoginInput {
  email: string;
  password: string;
}

/** `setup`: credentials good, no second factor yet; `two_factor`: code needed next. */
export type LoginResult = { next: 'setup' | 'two_factor'; userId: string; partialToken: string };

/**
 * Password step (docs/auth.md). Unknown email, wrong password and inactive
 * account all give the same 401 after the same Argon2 work, so neither the body nor the
 * time says which emails exist. The audit row keeps the real reason for admins.
 */
export async function login(ctx: AuthContext, input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
  const now = ctx.clock.now();
  const user = await findUserByEmail(ctx.db, input.email);
  const waitMs = await accountWaitMs(ctx.db, input.email, now);
  if (waitMs > 0 && !(user && (await isKnownAddress(ctx.db, user.id, meta.ip, now)))) {
    const retryAfter = Math.ceil(waitMs / 1000);
    await writeAudit(ctx.db, {
      at: now,
      action: 'auth.login_throttled',
      actor: { userId: null },
      targetType: 'user',
      targetId: user?.id ?? null,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { email: input.email.slice(0, 320), retry_after_seconds: retryAfter },
    });
    throw new AuthFailure(429, DETAIL.tooManyLoginFailures, { headers: { 'Retry-After': String(retryAfter) }, extra: { retry_after_seconds: retryAfter } });
  }
  const passwordOk = user ? await verifyPassword(user.passwordHash, input.password) : await verifyDummyPassword(input.password);
  if (!user || !passwordOk || !user.isActive) {
    const reason = !user ? 'unknown_email' : !passwordOk ? 'wrong_password' : 'inactive';
    await recordLoginFailure(ctx.db, input.email, now);
    await writeAudit(ctx.db, {
      at: now,
      action: 'auth.login_failed',
      actor: { userId: user?.id ?? null },
      targetType: 'user',
      targetId: user?.id ?? null,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { reason, email: input.email.slice(0, 320) },
    });
    throw new AuthFailure(401, DETAIL.invalidCredentials);
  }
  await clearLoginFailures(ctx.db, input.email);
  const next = user.twofaEnrolled ? 'two_factor' : 'setup';
  await writeAudit(ctx.db, {
    at: now,
    action: 'auth.password_verified',
    actor: { userId: user.id },
    targetType: 'user',
    targetId: user.id,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail: { next },
  });
  return { next, userId: user.id, partialToken: issuePartialToken(ctx, user.id) };
}
