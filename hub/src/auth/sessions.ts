import { randomBytes } from 'node:crypto';
import { PARTIAL_TOKEN_SECONDS, SESSION_SECONDS } from './constants.ts';
import type { AuthContext } from './context.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { epochSeconds, signToken, verifyToken, type TokenCheck } from './tokens.ts';

/** Partial token (docs/auth.md): sub, type `partial`, iat, exp = iat + 5 min. */
export function issuePartialToken(ctx: AuthContext, userId: string): string {
  const iat = epochSeconds(ctx.clock.now());
  return signToken(authKeys(ctx.config).sessionKey, { sub: userId, type: 'partial', iat, exp: iat + PARTIAL_TOKEN_SECONDS });
}

/**
 * Full session, 24 h; `tfa` = when the second factor was proven (freshness checks); `sid`
 * names the session for server-side revocation (logout); `ims` = issue time in ms for
 * "end all sessions" (users.sessions_valid_after). A re-verification keeps its `sid`, so
 * logging out ends the session whichever of its tokens the browser holds.
 */
export function issueSessionToken(ctx: AuthContext, userId: string, secondFactorAt: Date, sessionId: string = newSessionId()): string {
  const now = ctx.clock.now();
  const iat = epochSeconds(now);
  return signToken(authKeys(ctx.config).sessionKey, {
    sub: userId,
    type: 'access',
    iat,
    exp: iat + SESSION_SECONDS,
    tfa: epochSeconds(secondFactorAt),
    sid: sessionId,
    ims: now.getTime(),
  });
}

/** 128 random bits, URL-safe. */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}

export function checkToken(ctx: AuthContext, token: string): TokenCheck {
  return verifyToken(authKeys(ctx.config).sessionKey, token, ctx.clock.now());
}
