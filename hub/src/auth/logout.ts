import { writeAudit } from '../platform/audit-writer.ts';
import type { AuthContext, RequestMeta } from './context.ts';
import { endAllSessions, revokeSession } from './session-revocation.ts';
import { checkToken } from './sessions.ts';

/**
 * Logout (docs/auth.md "Sessions"): the session's id is refused from now on, so a copy of
 * the cookie (another tab, a stolen jar) stops working too, not just this browser's.
 * A token without an id (issued before ids existed) can only be ended with all the user's
 * sessions. No valid session: nothing to revoke; the cookie is cleared all the same.
 */
export async function logout(ctx: AuthContext, token: string | undefined, meta: RequestMeta): Promise<void> {
  if (token === undefined) return;
  const check = checkToken(ctx, token);
  if (!check.ok || check.claims.type !== 'access') return;
  const now = ctx.clock.now();
  const { sub: userId, sid } = check.claims;
  if (sid !== undefined) await revokeSession(ctx.db, { sessionId: sid, userId, expiresAt: new Date(check.claims.exp * 1000), now });
  else await endAllSessions(ctx.db, userId, now);
  await writeAudit(ctx.db, {
    at: now,
    action: 'auth.logout',
    actor: { userId },
    targetType: 'user',
    targetId: userId,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail: { scope: sid !== undefined ? 'session' : 'all_sessions' },
  });
}
