import type { AuthContext, RequestMeta } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { matchTotp, secondFactorAttempt } from './second-factor.ts';
import { issueSessionToken } from './sessions.ts';
import { findUserById } from './users.ts';

/**
 * `POST /auth/2fa/reverify`: a signed-in user proves the second factor again, for routes
 * mounted with `freshSecondFactorWithinSeconds` (admin key operations). Same lockout and
 * replay rules as login; the new session token carries `tfa` = now.
 */
export async function reverify(ctx: AuthContext, userId: string, code: string, meta: RequestMeta, sessionId?: string): Promise<{ sessionToken: string }> {
  const user = await findUserById(ctx.db, userId);
  if (!user || !user.isActive) throw new AuthFailure(401, DETAIL.userNotFound);
  return secondFactorAttempt(ctx, user, 'totp', meta, async (tx, now) => {
    const match = await matchTotp(ctx, tx, user.id, code, now, false);
    if (!match.ok) return { ok: false, reason: match.reason, failure: new AuthFailure(401, DETAIL.invalidCode) };
    return { ok: true, value: { sessionToken: issueSessionToken(ctx, user.id, now, sessionId) } };
  });
}
