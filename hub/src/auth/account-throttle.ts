import { createHash } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { auditLog } from '../db/schema/audit-log.ts';
import type { DbSession } from '../db/session.ts';
import { normalizeEmail } from './users.ts';

/**
 * Per-account login throttle (docs/auth.md "Login throttle"). The per-address limit (5/min)
 * does nothing against guesses spread over many addresses; this counts failed passwords
 * per login name instead:
 * - the first 5 failures within 15 minutes cost nothing extra (typos);
 * - after that each attempt must wait 1 s, 2 s, 4 s ... capped at 60 s after the last
 *   failure: at most ~1 guess a minute per account, from any number of addresses;
 * - never a lock: failures age out after 15 minutes, the wait never exceeds 60 s, and an
 *   address the user has completed a login from in the last 90 days is not throttled, so
 *   an attacker cannot keep the real user out.
 * Keyed by the SHA-256 of the normalized email, known or not, so a 429 says nothing about
 * whether an account exists. Shares `rate_limit_hits` (all hub processes see one count).
 */
export const ACCOUNT_THROTTLE = { freeFailures: 5, windowMs: 15 * 60_000, baseDelayMs: 1000, maxDelayMs: 60_000, knownAddressDays: 90 } as const;

const keyOf = (email: string): string => `login-fail:${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`;

/** Pure: how long (ms) the next attempt must still wait, given the failures in the window. */
export function throttleWaitMs(failures: readonly Date[], now: Date): number {
  if (failures.length < ACCOUNT_THROTTLE.freeFailures) return 0;
  const last = Math.max(...failures.map((f) => f.getTime()));
  const exponent = failures.length - ACCOUNT_THROTTLE.freeFailures;
  const delay = Math.min(ACCOUNT_THROTTLE.baseDelayMs * 2 ** Math.min(exponent, 16), ACCOUNT_THROTTLE.maxDelayMs);
  return Math.max(0, last + delay - now.getTime());
}

export async function accountWaitMs(db: DbSession, email: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - ACCOUNT_THROTTLE.windowMs);
  const rows = await db.sql<{ at: Date }>('SELECT at FROM rate_limit_hits WHERE key = $1 AND at > $2', [keyOf(email), since]);
  return throttleWaitMs(
    rows.map((r) => new Date(r.at)),
    now,
  );
}

export async function recordLoginFailure(db: DbSession, email: string, now: Date): Promise<void> {
  await db.sql('INSERT INTO rate_limit_hits (key, at) VALUES ($1, $2)', [keyOf(email), now]);
}

/** The right password ends the slowdown for everyone (the second factor still stands). */
export async function clearLoginFailures(db: DbSession, email: string): Promise<void> {
  await db.sql('DELETE FROM rate_limit_hits WHERE key = $1', [keyOf(email)]);
}

/** Has this user completed a login (password + second factor) from `ip` recently? */
export async function isKnownAddress(db: DbSession, userId: string, ip: string | null, now: Date): Promise<boolean> {
  if (ip === null) return false;
  const since = new Date(now.getTime() - ACCOUNT_THROTTLE.knownAddressDays * 86_400_000);
  const rows = await db.db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(and(eq(auditLog.actorUserId, userId), gt(auditLog.at, since), eq(auditLog.action, 'auth.login_succeeded'), eq(auditLog.ip, ip)))
    .limit(1);
  return rows.length > 0;
}
