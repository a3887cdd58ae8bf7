import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { every } from 'hono/combine';
import type { AuthContext } from './context.ts';
import { csrfProtection } from './csrf.ts';
import { requireUser, type AuthEnv } from './middleware.ts';
import { RATE_LIMITS, rateLimit } from './rate-limit.ts';
import { HubError } from '../platform/errors.ts';

/** docs/protocol.md: admin key operations need the second factor proven within 5 minutes. */
export const FRESH_SECOND_FACTOR_SECONDS = 300;

/** A collector configuration is the largest admin body; 256 KB leaves room for many cameras. */
export const MAX_ADMIN_BODY_BYTES = 256 * 1024;

/** One middleware per kind of admin route (each a chain), built once per app. */
export interface AdminGuards {
  /** GET: admin session. Reads are not rate limited (none are listed for them). */
  read: MiddlewareHandler<AuthEnv>;
  /** POST: admin, 30/min per user (docs/admin-api.md), CSRF for forms, body cap. */
  post: MiddlewareHandler<AuthEnv>;
  /** POST that touches keys: as `post`, plus a second factor at most 5 minutes old. */
  keyPost: MiddlewareHandler<AuthEnv>;
  /** DELETE: admin, the deletion limit (10/min per user, shared with every `DELETE /api/v1/*`; docs/admin-api.md), CSRF, body cap. */
  delete: MiddlewareHandler<AuthEnv>;
  /** DELETE that touches keys: as `delete`, plus a second factor at most 5 minutes old. */
  keyDelete: MiddlewareHandler<AuthEnv>;
}

/**
 * Order matters: the session check comes first so the rate limit counts per user (not per
 * address) and refused sessions spend nobody's allowance.
 */
export function adminGuards(deps: AuthContext): AdminGuards {
  const admin = requireUser(deps, { roles: ['admin'] });
  const freshAdmin = requireUser(deps, { roles: ['admin'], freshSecondFactorWithinSeconds: FRESH_SECOND_FACTOR_SECONDS });
  // One limiter for every admin POST, including /api/v1/collectors/{id}/rotate-key:
  // the scope (`api.admin`) is shared, so the 30 are per user across all of them.
  const postLimit = rateLimit(deps, RATE_LIMITS.admin);
  // Every DELETE takes the deletion limit instead (`api.delete`, 10 a minute, one allowance
  // with the watchlist deletions): a removal is harder to take back than a change.
  const deleteLimit = rateLimit(deps, RATE_LIMITS.delete);
  const csrf = csrfProtection();
  const limitBody: MiddlewareHandler<AuthEnv> = bodyLimit({
    maxSize: MAX_ADMIN_BODY_BYTES,
    onError: () => {
      throw new HubError('payload_too_large', `request body over ${MAX_ADMIN_BODY_BYTES} bytes`);
    },
  });
  return {
    read: admin,
    post: every(admin, postLimit, csrf, limitBody),
    keyPost: every(freshAdmin, postLimit, csrf, limitBody),
    delete: every(admin, deleteLimit, csrf, limitBody),
    keyDelete: every(freshAdmin, deleteLimit, csrf, limitBody),
  };
}
