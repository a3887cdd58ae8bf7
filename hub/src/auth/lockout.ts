import { and, eq, gt, isNull, ne, or } from 'drizzle-orm';
import { twoFactorAttempts } from '../db/schema/two-factor-attempts.ts';
import type { DbSession } from '../db/session.ts';
import { LOCKOUT_DURATION_MS, LOCKOUT_FAILURES, LOCKOUT_WINDOW_MS } from './constants.ts';

/** Failure reason for attempts refused because the user is already locked out. */
export const LOCKED_OUT_REASON = 'locked_out';

/**
 * Pure rule (docs/auth.md): any 5 failures within 5 minutes lock the
 * user for 15 minutes after the 5th. Attempts refused while locked are logged but not
 * counted, otherwise an attacker could keep a user locked out forever with one request
 * every few minutes. Returns the unlock time, or null when not locked at `now`.
 */
export function lockedUntil(failures: readonly Date[], now: Date): Date | null {
  const times = failures.map((d) => d.getTime()).sort((a, b) => a - b);
  let until = 0;
  for (let i = LOCKOUT_FAILURES - 1; i < times.length; i++) {
    const last = times[i] as number;
    const first = times[i - (LOCKOUT_FAILURES - 1)] as number;
    if (last - first <= LOCKOUT_WINDOW_MS) until = Math.max(until, last + LOCKOUT_DURATION_MS);
  }
  return until > now.getTime() ? new Date(until) : null;
}

/** Failures that count, from the last 20 minutes (lock window + lock length). */
export async function currentLockout(db: DbSession, userId: string, now: Date): Promise<Date | null> {
  const since = new Date(now.getTime() - LOCKOUT_WINDOW_MS - LOCKOUT_DURATION_MS);
  const rows = await db.db
    .select({ at: twoFactorAttempts.createdAt })
    .from(twoFactorAttempts)
    .where(
      and(
        eq(twoFactorAttempts.userId, userId),
        eq(twoFactorAttempts.success, false),
        gt(twoFactorAttempts.createdAt, since),
        or(isNull(twoFactorAttempts.failureReason), ne(twoFactorAttempts.failureReason, LOCKED_OUT_REASON)),
      ),
    );
  return lockedUntil(
    rows.map((r) => r.at),
    now,
  );
}

export interface AttemptRecord {
  userId: string;
  type: 'totp' | 'backup_code' | 'setup';
  success: boolean;
  at: Date;
  ip: string | null;
  userAgent: string | null;
  failureReason?: string;
}

export async function recordAttempt(db: DbSession, attempt: AttemptRecord): Promise<void> {
  await db.db.insert(twoFactorAttempts).values({
    userId: attempt.userId,
    attemptType: attempt.type,
    success: attempt.success,
    ipAddress: attempt.ip,
    userAgent: attempt.userAgent ? attempt.userAgent.slice(0, 512) : null,
    failureReason: attempt.failureReason ?? null,
    createdAt: attempt.at,
  });
}

export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}
