import { PARTIAL_TOKEN_SECONDS, SESSION_SECONDS } from './constants.ts';
import type { AuthContext } from './context.ts';
import { authKeys } from './hub-secret.ts';
import { epochSeconds, signToken, verifyToken, type TokenCheck } from './tokens.ts';

/** Partial token (spec "Users: session cookie" 3): sub, type `partial`, iat, exp = iat + 5 min. */
export function issuePartialToken(ctx: AuthContext, userId: string): string {
  const iat = epochSeconds(ctx.clock.now());
  return signToken(authKeys(ctx.config).sessionKey, { sub: userId, type: 'partial', iat, exp: iat + PARTIAL_TOKEN_SECONDS });
}

/** Full session, 24 h; `tfa` = when the second factor was proven (freshness checks). */
export function issueSessionToken(ctx: AuthContext, userId: string, secondFactorAt: Date): string {
  const iat = epochSeconds(ctx.clock.now());
  return signToken(authKeys(ctx.config).sessionKey, { sub: userId, type: 'access', iat, exp: iat + SESSION_SECONDS, tfa: epochSeconds(secondFactorAt) });
}

export function checkToken(ctx: AuthContext, token: string): TokenCheck {
  return verifyToken(authKeys(ctx.config).sessionKey, token, ctx.clock.now());
}
