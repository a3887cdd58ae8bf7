import { eq } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { backupCodes } from '../db/schema/backup-codes.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import { users } from '../db/schema/users.ts';
import { generateBackupCodes, hashBackupCode, normalizeBackupCode } from './backup-codes.ts';
import { TOTP_ISSUER } from './constants.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { sealSecret } from '../platform/secrets/secret-box.ts';
import { matchTotp, secondFactorAttempt } from './second-factor.ts';
import { issueSessionToken } from './sessions.ts';
import { newTotpSecret, totpUri } from './totp.ts';
import type { UserRow } from './users.ts';

export interface SetupMaterial {
  secret: string;
  otpauthUri: string;
  issuer: string;
  accountName: string;
}

export const BACKUP_CODES_WARNING =
  'Save these backup codes somewhere safe. Each works once, they are shown only this time, and they are the only way back in if you lose your authenticator.';

function refuseEnrolled(user: UserRow): void {
  if (user.twofaEnrolled) throw new AuthFailure(409, DETAIL.alreadyEnrolled);
}

/**
 * `GET /auth/2fa/setup`: a fresh secret, stored encrypted and pending (replacing any
 * earlier pending one, so reloading the page simply shows a new QR code).
 */
export async function startSetup(ctx: AuthContext, user: UserRow): Promise<SetupMaterial> {
  refuseEnrolled(user);
  const secret = newTotpSecret();
  const sealed = sealSecret(authKeys(ctx.config).totpMasterKey, secret);
  const row = { secretCiphertext: sealed.ciphertext, salt: sealed.salt, pending: true, lastUsedStep: null, createdAt: ctx.clock.now(), verifiedAt: null };
  await ctx.db.db
    .insert(userTwoFactor)
    .values({ userId: user.id, ...row })
    .onConflictDoUpdate({ target: userTwoFactor.userId, set: row });
  return { secret, otpauthUri: totpUri(secret, user.email), issuer: TOTP_ISSUER, accountName: user.email };
}

export interface SetupResult {
  codes: string[];
  warning: string;
  sessionToken: string;
}

/**
 * `POST /auth/2fa/setup/verify`: the first valid code activates the secret, replaces any
 * old backup codes with 10 new ones (only their SHA-256 is kept) and opens a full session:
 * the user has just proven both factors.
 */
export async function verifySetup(ctx: AuthContext, user: UserRow, code: string, meta: RequestMeta): Promise<SetupResult> {
  refuseEnrolled(user);
  return secondFactorAttempt(ctx, user, 'setup', meta, async (tx, now) => {
    const match = await matchTotp(ctx, tx, user.id, code, now, true);
    if (!match.ok) {
      const detail = match.reason === 'no_pending_secret' ? DETAIL.noPendingSetup : DETAIL.invalidCode;
      return { ok: false, reason: match.reason, failure: new AuthFailure(400, detail) };
    }
    await tx.db.update(userTwoFactor).set({ pending: false, verifiedAt: now }).where(eq(userTwoFactor.userId, user.id));
    await tx.db.update(users).set({ twofaEnrolled: true, twofaEnrolledAt: now, updatedAt: now }).where(eq(users.id, user.id));
    const codes = generateBackupCodes();
    await tx.db.delete(backupCodes).where(eq(backupCodes.userId, user.id));
    await tx.db.insert(backupCodes).values(codes.map((c) => ({ userId: user.id, codeHash: hashBackupCode(normalizeBackupCode(c) ?? c), createdAt: now })));
    await writeAudit(tx, {
      at: now,
      action: 'auth.two_factor_enrolled',
      actor: { userId: user.id },
      targetType: 'user',
      targetId: user.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { backup_codes: codes.length },
    });
    return { ok: true, value: { codes, warning: BACKUP_CODES_WARNING, sessionToken: issueSessionToken(ctx, user.id, now) } };
  });
}

/** `POST /auth/2fa/setup/confirm`: the user says the codes are saved; recorded for audit. */
export async function confirmBackupCodesSaved(ctx: AuthContext, userId: string, meta: RequestMeta): Promise<void> {
  await writeAudit(ctx.db, {
    at: ctx.clock.now(),
    action: 'auth.backup_codes_confirmed',
    actor: { userId },
    targetType: 'user',
    targetId: userId,
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
}
