import type { Context, MiddlewareHandler } from 'hono';
import type { UserRole } from '../db/schema/users.ts';
import type { AuthContext } from './context.ts';
import { sessionCookie } from './cookies.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { isSessionRevoked } from './session-revocation.ts';
import { checkToken } from './sessions.ts';
import { findUserById } from './users.ts';

export type Role = UserRole;

/** The signed-in user, as handlers see it (`c.get('user')`). Role is read fresh per request. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
  /** When this session last proved the second factor (login or `/auth/2fa/reverify`). */
  secondFactorAt: Date;
  /** The session's id (absent on tokens issued before sessions had one). */
  sessionId: string | undefined;
  /** When the session token expires: how long a logout record must be kept. */
  sessionExpiresAt: Date;
  /** Set only on routes that let a pending password change through (`allowPendingPasswordChange`). */
  mustChangePassword?: true;
}

export type AuthEnv = { Variables: { user: SessionUser } };

export interface RequireUserOptions {
  /** Allowed roles; absent: any signed-in user. */
  roles?: readonly Role[];
  /** Sensitive actions (docs/protocol.md): 2FA proven at most this long ago. */
  freshSecondFactorWithinSeconds?: number;
  /** The password-change route: reachable while a one-time password is still unchanged. */
  allowPendingPasswordChange?: boolean;
}

/**
 * The protected-resource checks of docs/auth.md, in its order, then
 * ours: role (403 `Insufficient permissions`) and second-factor freshness (403
 * `Recent 2FA verification required`, `X-2FA-Fresh-Required: true`). Usable outside HTTP
 * routes (the live channel's upgrade) with the raw cookie value.
 */
export async function authenticateSession(ctx: AuthContext, token: string | undefined, options: RequireUserOptions = {}): Promise<SessionUser> {
  if (token === undefined) throw new AuthFailure(401, DETAIL.notAuthenticated);
  const check = checkToken(ctx, token);
  if (check.ok && check.claims.type === 'partial') {
    throw new AuthFailure(401, DETAIL.twoFactorRequired, { headers: { 'X-2FA-Required': 'true' } });
  }
  if (!check.ok || check.claims.type !== 'access' || check.claims.sub === '' || check.claims.tfa === undefined) {
    throw new AuthFailure(401, DETAIL.invalidToken);
  }
  const user = await findUserById(ctx.db, check.claims.sub);
  if (!user || !user.isActive) throw new AuthFailure(401, DETAIL.userNotFound);
  // Logged out, or all sessions ended by an admin or a password change (docs/auth.md "Sessions").
  if (await isSessionRevoked(ctx.db, check.claims, user.sessionsValidAfter)) throw new AuthFailure(401, DETAIL.sessionEnded);
  if (user.twofaRequired && !user.twofaEnrolled) {
    throw new AuthFailure(403, DETAIL.enrollmentRequired, { headers: { 'X-2FA-Setup-Required': 'true' } });
  }
  if (user.mustChangePassword && !options.allowPendingPasswordChange) {
    throw new AuthFailure(403, DETAIL.passwordChangeRequired, { headers: { 'X-Password-Change-Required': 'true' } });
  }
  if (options.roles && !options.roles.includes(user.role)) throw new AuthFailure(403, DETAIL.insufficientPermissions);
  const secondFactorAt = new Date(check.claims.tfa * 1000);
  const fresh = options.freshSecondFactorWithinSeconds;
  if (fresh !== undefined && ctx.clock.now().getTime() - secondFactorAt.getTime() > fresh * 1000) {
    throw new AuthFailure(403, DETAIL.freshTwoFactorRequired, { headers: { 'X-2FA-Fresh-Required': 'true' } });
  }
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    secondFactorAt,
    sessionId: check.claims.sid,
    sessionExpiresAt: new Date(check.claims.exp * 1000),
    ...(user.mustChangePassword ? { mustChangePassword: true as const } : {}),
  };
}

/** `{ "detail": ... }` with the failure's headers and extra fields. */
export function failureResponse(c: Context, failure: AuthFailure): Response {
  for (const [name, value] of Object.entries(failure.headers)) c.header(name, value);
  return c.json({ detail: failure.message, ...failure.extra }, failure.status);
}

/** Hono middleware: `app.get('/x', requireUser(deps, { roles: ['admin'] }), handler)`. */
export function requireUser(deps: AuthContext, options: RequireUserOptions = {}): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    try {
      c.set('user', await authenticateSession(deps, sessionCookie(c), options));
    } catch (err) {
      if (err instanceof AuthFailure) return failureResponse(c, err);
      throw err;
    }
    await next();
    return undefined;
  };
}
