import { and, eq, isNull } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { backupCodes } from '../db/schema/backup-codes.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import { users } from '../db/schema/users.ts';
import { hashBackupCode, normalizeBackupCode } from './backup-codes.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { secondFactorAttempt } from './second-factor.ts';
import { issuePartialToken } from './sessions.ts';
import type { UserRow } from './users.ts';

/**
 * `POST /auth/2fa/recovery` (docs/auth.md, last row): an unused backup code
 * is spent, the current TOTP secret is deleted and the user must enrol again. Returns a
 * fresh partial token so the setup page that follows has its full 5 minutes.
 */
export async function recoverWithBackupCode(ctx: AuthContext, user: UserRow, input: string, meta: RequestMeta): Promise<{ partialToken: string }> {
  if (!user.twofaEnrolled) throw new AuthFailure(403, DETAIL.notEnrolled, { headers: { 'X-2FA-Setup-Required': 'true' } });
  return secondFactorAttempt(ctx, user, 'backup_code', meta, async (tx, now) => {
    const normalized = normalizeBackupCode(input);
    const refused = (reason: string) => ({ ok: false as const, reason, failure: new AuthFailure(401, DETAIL.invalidBackupCode) });
    if (normalized === null) return refused('malformed_code');
    const spent = await tx.db
      .update(backupCodes)
      .set({ usedAt: now })
      .where(and(eq(backupCodes.userId, user.id), eq(backupCodes.codeHash, hashBackupCode(normalized)), isNull(backupCodes.usedAt)))
      .returning({ id: backupCodes.id });
    if (spent.length !== 1) return refused('invalid_or_used_backup_code');
    await tx.db.delete(userTwoFactor).where(eq(userTwoFactor.userId, user.id));
    await tx.db.update(users).set({ twofaEnrolled: false, twofaEnrolledAt: null, updatedAt: now }).where(eq(users.id, user.id));
    await writeAudit(tx, {
      at: now,
      action: 'auth.recovery_used',
      actor: { userId: user.id },
      targetType: 'user',
      targetId: user.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { backup_code_id: spent[0]?.id },
    });
    return { ok: true, value: { partialToken: issuePartialToken(ctx, user.id) } };
  });
}
