import { and, eq, lt } from 'drizzle-orm';
import { revokedSessions } from '../db/schema/revoked-sessions.ts';
import { users } from '../db/schema/users.ts';
import type { DbSession } from '../db/session.ts';
import type { TokenClaims } from './tokens.ts';

/**
 * Server-side session state (docs/auth.md "Sessions"). Session tokens stay signed and
 * stateless for the common case; two small checks make them revocable:
 * - logout stores the token's `sid` until the token would expire (`revoked_sessions`);
 * - "end all sessions" sets `users.sessions_valid_after`: older tokens are refused.
 */
export async function isSessionRevoked(db: DbSession, claims: TokenClaims, sessionsValidAfter: Date | null): Promise<boolean> {
  // Tokens from before `ims` existed count as issued at the end of their `iat` second.
  const issuedMs = claims.ims ?? claims.iat * 1000 + 999;
  // Inclusive: a session issued in the very millisecond of the cut is cut too.
  if (sessionsValidAfter !== null && issuedMs <= sessionsValidAfter.getTime()) return true;
  if (claims.sid === undefined) return false;
  const [row] = await db.db.select({ id: revokedSessions.sessionId }).from(revokedSessions).where(eq(revokedSessions.sessionId, claims.sid)).limit(1);
  return row !== undefined;
}

/** Logout: this session id is refused from now on. Expired rows are swept on the way. */
export async function revokeSession(db: DbSession, input: { sessionId: string; userId: string; expiresAt: Date; now: Date }): Promise<void> {
  await db.db.delete(revokedSessions).where(lt(revokedSessions.expiresAt, input.now));
  await db.db
    .insert(revokedSessions)
    .values({ sessionId: input.sessionId, userId: input.userId, revokedAt: input.now, expiresAt: input.expiresAt })
    .onConflictDoNothing();
}

/** Every session of the user issued before `now` is refused (the caller audits why). */
export async function endAllSessions(db: DbSession, userId: string, now: Date): Promise<void> {
  await db.db
    .update(users)
    .set({ sessionsValidAfter: now, updatedAt: now })
    .where(and(eq(users.id, userId)));
}
