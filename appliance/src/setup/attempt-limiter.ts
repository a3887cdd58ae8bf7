import { createMemoryRateLimiter } from '@alpr/shared/rate-limit/index';

/**
 * Claim/provision attempts per source address: a token bucket, pure apart from the injected
 * clock. Default 5 at once, refilled 5 per minute: a person retyping a code never meets it,
 * a script guessing codes gets 7,200 tries a day against ~8.5e11 codes (and the hub limits
 * too, 10/min). docs/setup-page.md "Rate limit".
 */
export interface AttemptLimits {
  burst: number;
  perMinute: number;
  /** Addresses remembered at most; full buckets are forgotten first. A LAN has few. */
  maxKeys: number;
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = { burst: 5, perMinute: 5, maxKeys: 1_000 };

export type AttemptDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

export interface AttemptLimiter {
  take(key: string): AttemptDecision;
}

/** The platform's one token bucket (`@alpr/shared/rate-limit`), keyed by source address. */
export function createAttemptLimiter(now: () => number, limits: AttemptLimits = DEFAULT_ATTEMPT_LIMITS): AttemptLimiter {
  const limiter = createMemoryRateLimiter(
    { limit: limits.burst, windowMs: (limits.burst / limits.perMinute) * 60_000, maxKeys: limits.maxKeys, overflow: 'keep-limited' },
    now,
  );
  return {
    take(key) {
      const d = limiter.take(key);
      return d.allowed ? { allowed: true, remaining: d.remaining } : { allowed: false, retryAfterSeconds: d.retryAfterSeconds };
    },
  };
}
