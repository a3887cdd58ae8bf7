import type { AuthContext } from './context.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { checkToken } from './sessions.ts';
import type { TokenType } from './tokens.ts';
import { findUserById, type UserRow } from './users.ts';

/**
 * The user behind a token presented to a two-factor endpoint (verify, setup, recovery).
 * Missing: 401 `Not authenticated`; bad, expired or of a type the endpoint does not take:
 * 401 `Invalid token`; user gone or inactive: 401 `User not found or inactive`.
 */
export async function tokenUser(ctx: AuthContext, token: string | undefined, accepted: readonly TokenType[]): Promise<UserRow> {
  if (!token) throw new AuthFailure(401, DETAIL.notAuthenticated);
  const check = checkToken(ctx, token);
  if (!check.ok || !accepted.includes(check.claims.type)) throw new AuthFailure(401, DETAIL.invalidToken);
  const user = await findUserById(ctx.db, check.claims.sub);
  if (!user || !user.isActive) throw new AuthFailure(401, DETAIL.userNotFound);
  return user;
}

export function lockedFailure(seconds: number, until: Date): AuthFailure {
  return new AuthFailure(429, `Too many failed 2FA attempts; try again in ${seconds} seconds`, {
    headers: { 'Retry-After': String(seconds) },
    extra: { retry_after_seconds: seconds, locked_until: until.toISOString() },
  });
}
