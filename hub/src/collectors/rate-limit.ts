import { createMemoryRateLimiter } from '@alpr/shared/rate-limit/index';

/**
 * In-memory token bucket per client address, for the unauthenticated enrollment endpoints
 * (claim, provision). the claim code must be rate limited (docs/auth.md); the rate
 * is not given: 10 attempts per minute per address, burst 10. A claim code has ~40 bits,
 * so 10/min makes guessing hopeless while a technician retyping a code is never blocked.
 * In memory: one hub process; limits reset on restart (acceptable, see docs/collectors.md).
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the bucket is full again (X-RateLimit-Reset). */
  resetAt: Date;
  /** Seconds until the next attempt is allowed (Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string, now: Date): RateLimitDecision;
}

export interface TokenBucketOptions {
  capacity: number;
  refillPerMinute: number;
  /** Buckets kept at most; full buckets are dropped first, so memory stays bounded. */
  maxKeys?: number;
}

export const ENROLLMENT_RATE_LIMIT: TokenBucketOptions = { capacity: 10, refillPerMinute: 10, maxKeys: 10_000 };

/** The platform's one token bucket (`@alpr/shared/rate-limit`), keyed by address. */
export function createTokenBucket(options: TokenBucketOptions): RateLimiter {
  // The hub passes the request's time to each call; the shared limiter reads it from here.
  let nowMs = 0;
  const limiter = createMemoryRateLimiter(
    { limit: options.capacity, windowMs: (options.capacity / options.refillPerMinute) * 60_000, maxKeys: options.maxKeys ?? 10_000 },
    () => nowMs,
  );
  return {
    take(key, now) {
      nowMs = now.getTime();
      const d = limiter.take(key);
      return { allowed: d.allowed, limit: d.limit, remaining: d.remaining, resetAt: new Date(d.resetAtMs), retryAfterSeconds: d.retryAfterSeconds };
    },
  };
}
