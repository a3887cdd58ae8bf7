import { eq } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { users } from '../db/schema/users.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { passwordSchema } from './registration.ts';
import { matchTotp, secondFactorAttempt } from './second-factor.ts';
import { issueSessionToken } from './sessions.ts';
import { findUserById } from './users.ts';

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
  code: string;
}

/**
 * `POST /auth/password` (docs/auth.md "Password change"): the current password and a fresh
 * TOTP code, both checked inside one second-factor attempt, so wrong guesses of either
 * count toward the 2FA lockout (5 per 5 minutes). On success: new Argon2id hash, the
 * one-time-password flag cleared, every other session of the user ended, and a new session
 * for this browser.
 */
export async function changePassword(ctx: AuthContext, userId: string, input: ChangePasswordInput, meta: RequestMeta): Promise<{ sessionToken: string }> {
  const newPassword = passwordSchema.safeParse(input.newPassword);
  if (!newPassword.success) throw new AuthFailure(400, newPassword.error.issues[0]?.message ?? 'new password refused');
  const user = await findUserById(ctx.db, userId);
  if (!user || !user.isActive) throw new AuthFailure(401, DETAIL.userNotFound);
  const currentOk = await verifyPassword(user.passwordHash, input.currentPassword);
  if (currentOk && input.currentPassword === newPassword.data) throw new AuthFailure(400, 'new password must differ from the current one');
  const newHash = await hashPassword(newPassword.data);
  return secondFactorAttempt(ctx, user, 'totp', meta, async (tx, now) => {
    const match = await matchTotp(ctx, tx, user.id, input.code, now, false);
    if (!match.ok) return { ok: false, reason: match.reason, failure: new AuthFailure(401, DETAIL.invalidCode) };
    if (!currentOk) return { ok: false, reason: 'wrong_current_password', failure: new AuthFailure(403, DETAIL.wrongCurrentPassword) };
    await tx.db
      .update(users)
      // The cut is 1 ms before now: the session issued below (at now) is the one that survives.
      .set({ passwordHash: newHash, mustChangePassword: false, sessionsValidAfter: new Date(now.getTime() - 1), updatedAt: now })
      .where(eq(users.id, user.id));
    await writeAudit(tx, {
      at: now,
      action: 'user.password_changed',
      actor: { userId: user.id },
      targetType: 'user',
      targetId: user.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { was_one_time: user.mustChangePassword, other_sessions_ended: true },
    });
    return { ok: true, value: { sessionToken: issueSessionToken(ctx, user.id, now) } };
  });
}
