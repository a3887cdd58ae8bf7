/**
 * In-memory token bucket per client address, for the unauthenticated enrollment endpoints
 * (claim, provision). spec "Authentication" 10: "the claim code is rate limited"; the rate
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

interface Bucket {
  tokens: number;
  at: number;
}

export function createTokenBucket(options: TokenBucketOptions): RateLimiter {
  const perMs = options.refillPerMinute / 60_000;
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, nowMs: number): number =>
    Math.min(options.capacity, bucket.tokens + Math.max(0, nowMs - bucket.at) * perMs);

  const prune = (nowMs: number): void => {
    for (const [key, bucket] of buckets) {
      if (refill(bucket, nowMs) >= options.capacity) buckets.delete(key);
    }
    // Still too many (a flood from many addresses): drop the oldest entries.
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(key);
    }
  };

  return {
    take(key, now) {
      const nowMs = now.getTime();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxKeys) prune(nowMs);
        bucket = { tokens: options.capacity, at: nowMs };
        buckets.set(key, bucket);
      }
      const tokens = refill(bucket, nowMs);
      const allowed = tokens >= 1;
      bucket.tokens = allowed ? tokens - 1 : tokens;
      bucket.at = nowMs;
      const missing = options.capacity - bucket.tokens;
      return {
        allowed,
        limit: options.capacity,
        remaining: Math.floor(bucket.tokens),
        resetAt: new Date(nowMs + Math.ceil(missing / perMs)),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)),
      };
    },
  };
}
