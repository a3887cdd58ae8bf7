import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { writeAudit } from '../platform/audit-writer.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import type { DbSession } from '../db/session.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { currentLockout, LOCKED_OUT_REASON, recordAttempt, secondsUntil, type AttemptRecord } from './lockout.ts';
import { openSecret } from '../platform/secrets/secret-box.ts';
import { issueSessionToken } from './sessions.ts';
import { checkTotp } from './totp.ts';
import { lockedFailure } from './token-user.ts';
import type { UserRow } from './users.ts';

type Outcome<T> = { ok: true; value: T } | { ok: false; failure: AuthFailure };

/**
 * Runs one second-factor attempt under a row lock on the user's 2FA row, so parallel
 * guesses cannot slip past the lockout count and one code cannot be used twice by racing
 * requests. The attempt row commits whether the code was right or not; the refusal is
 * thrown only after the transaction has committed.
 */
export async function secondFactorAttempt<T>(
  ctx: AuthContext,
  user: UserRow,
  type: AttemptRecord['type'],
  meta: RequestMeta,
  attempt: (tx: DbSession, now: Date) => Promise<{ ok: true; value: T } | { ok: false; reason: string; failure: AuthFailure }>,
): Promise<T> {
  const now = ctx.clock.now();
  const base = { userId: user.id, type, at: now, ip: meta.ip, userAgent: meta.userAgent };
  const outcome = await ctx.db.transaction(async (tx): Promise<Outcome<T>> => {
    await tx.sql('SELECT pg_advisory_xact_lock(hashtext($1))', [`2fa:${user.id}`]);
    const locked = await currentLockout(tx, user.id, now);
    if (locked) {
      await recordAttempt(tx, { ...base, success: false, failureReason: LOCKED_OUT_REASON });
      return { ok: false, failure: lockedFailure(secondsUntil(locked, now), locked) };
    }
    const result = await attempt(tx, now);
    if (result.ok) {
      await recordAttempt(tx, { ...base, success: true });
      return result;
    }
    await recordAttempt(tx, { ...base, success: false, failureReason: result.reason });
    const lockedNow = await currentLockout(tx, user.id, now);
    if (lockedNow) {
      await writeAudit(tx, {
        at: now,
        action: 'auth.two_factor_locked',
        actor: { userId: user.id },
        targetType: 'user',
        targetId: user.id,
        ip: meta.ip,
        userAgent: meta.userAgent,
        detail: { type, locked_until: lockedNow.toISOString() },
      });
      return { ok: false, failure: lockedFailure(secondsUntil(lockedNow, now), lockedNow) };
    }
    return { ok: false, failure: result.failure };
  });
  if (!outcome.ok) throw outcome.failure;
  return outcome.value;
}

/** Decrypts the user's TOTP secret and checks `code` against it (replay-safe). */
export async function matchTotp(
  ctx: AuthContext,
  tx: DbSession,
  userId: string,
  code: string,
  now: Date,
  wantPending: boolean,
): Promise<{ ok: true; step: number } | { ok: false; reason: string }> {
  const rows = await tx.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId)).limit(1);
  const row = rows[0];
  if (!row || row.pending !== wantPending) return { ok: false, reason: wantPending ? 'no_pending_secret' : 'no_secret' };
  const secret = openSecret(authKeys(ctx.config).totpMasterKey, { ciphertext: row.secretCiphertext, salt: row.salt });
  if (secret === null) return { ok: false, reason: 'secret_undecryptable' };
  const check = await checkTotp(secret, code.trim(), now, row.lastUsedStep);
  if (!check.valid) return { ok: false, reason: check.reason === 'mismatch' ? 'invalid_code' : check.reason === 'replay' ? 'replayed_code' : 'malformed_code' };
  // Conditional: a racing request that already stored this step makes this one a replay.
  const updated = await tx.db
    .update(userTwoFactor)
    .set({ lastUsedStep: check.step })
    .where(and(eq(userTwoFactor.userId, userId), or(isNull(userTwoFactor.lastUsedStep), lt(userTwoFactor.lastUsedStep, check.step))))
    .returning({ userId: userTwoFactor.userId });
  return updated.length === 1 ? { ok: true, step: check.step } : { ok: false, reason: 'replayed_code' };
}

/**
 * `POST /auth/2fa/verify`: partial session + valid code → full session. The caller has
 * resolved the partial token to `user`; an unenrolled user is sent to setup instead.
 */
export async function verifyLoginCode(ctx: AuthContext, user: UserRow, code: string, meta: RequestMeta): Promise<{ sessionToken: string }> {
  if (!user.twofaEnrolled) {
    throw new AuthFailure(403, DETAIL.enrollmentRequired, { headers: { 'X-2FA-Setup-Required': 'true' } });
  }
  return secondFactorAttempt(ctx, user, 'totp', meta, async (tx, now) => {
    const match = await matchTotp(ctx, tx, user.id, code, now, false);
    if (!match.ok) return { ok: false, reason: match.reason, failure: new AuthFailure(401, DETAIL.invalidCode) };
    await writeAudit(tx, {
      at: now,
      action: 'auth.login_succeeded',
      actor: { userId: user.id },
      targetType: 'user',
      targetId: user.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
      detail: { second_factor: 'totp' },
    });
    return { ok: true, value: { sessionToken: issueSessionToken(ctx, user.id, now) } };
  });
}
