import type { Context, MiddlewareHandler } from 'hono';
import { clientIp } from '../platform/http/client-ip.ts';
import type { AuthContext } from './context.ts';
import { DETAIL } from './failure.ts';
import type { AuthEnv, SessionUser } from './middleware.ts';
import type { RateDecision } from './rate-limit-policy.ts';
import { consumeRateLimit, pruneRateLimitHits, type RateAlgorithm } from './rate-limit-store.ts';

export interface RateLimitOptions {
  /** Names the counter, e.g. `auth.login`, `api.search`; two routes sharing a scope share a limit. */
  scope: string;
  limit: number;
  windowSeconds: number;
  /** `user`: the signed-in user (mount after requireUser; falls back to the address). */
  key: 'user' | 'address';
  /** Default: sliding window for `user`, token bucket (bursts) for `address`. */
  algorithm?: RateAlgorithm;
}

/** The table of limits (docs/auth.md), for the domains that mount these routes. */
export const RATE_LIMITS = {
  login: { scope: 'auth.login', limit: 5, windowSeconds: 60, key: 'address' },
  register: { scope: 'auth.register', limit: 3, windowSeconds: 60, key: 'address' },
  forgotPassword: { scope: 'auth.forgot-password', limit: 3, windowSeconds: 60, key: 'address' },
  search: { scope: 'api.search', limit: 60, windowSeconds: 60, key: 'user' },
  events: { scope: 'api.events', limit: 120, windowSeconds: 60, key: 'user' },
  watchlist: { scope: 'api.watchlist', limit: 30, windowSeconds: 60, key: 'user' },
  export: { scope: 'api.export', limit: 5, windowSeconds: 60, key: 'user' },
  admin: { scope: 'api.admin', limit: 30, windowSeconds: 60, key: 'user' },
  delete: { scope: 'api.delete', limit: 10, windowSeconds: 60, key: 'user' },
  /** Messaging bot link codes (docs/messaging.md): 5 in 10 minutes a user. */
  linkCode: { scope: 'telegram.link_code', limit: 5, windowSeconds: 600, key: 'user' },
  /** The bot platform's webhook, per address: generous (it retries), bounded against floods. */
  botWebhook: { scope: 'telegram.webhook', limit: 600, windowSeconds: 60, key: 'address' },
} as const satisfies Record<string, RateLimitOptions>;

/** About one request in 500 also sweeps dead rows, so no scheduler is needed for it. */
const PRUNE_EVERY = 500;

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.resetAt.getTime() / 1000)),
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}

function subject(c: Context<AuthEnv>, key: RateLimitOptions['key']): string {
  const user = c.get('user') as SessionUser | undefined;
  if (key === 'user' && user) return `user:${user.id}`;
  return `addr:${clientIp(c) ?? 'unknown'}`;
}

/**
 * Hono middleware: counts the request, sets X-RateLimit-* on every answer and refuses with
 * 429 `{"detail": "Rate limit exceeded"}` + Retry-After once the limit is spent.
 */
export function rateLimit(deps: AuthContext, options: RateLimitOptions): MiddlewareHandler<AuthEnv> {
  const algorithm = options.algorithm ?? (options.key === 'user' ? 'sliding-window' : 'token-bucket');
  let calls = 0;
  return async (c, next) => {
    const now = deps.clock.now();
    const key = `${options.scope}:${subject(c, options.key)}`;
    const decision = await consumeRateLimit(deps.db, key, algorithm, options.limit, options.windowSeconds * 1000, now);
    calls += 1;
    if (calls % PRUNE_EVERY === 0) {
      pruneRateLimitHits(deps.db, now).catch((err: unknown) => deps.log.warn({ err }, 'rate limit prune failed'));
    }
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) return c.json({ detail: DETAIL.rateLimited, retry_after_seconds: decision.retryAfterSeconds }, 429, headers);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    return undefined;
  };
}
