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

interface Bucket {
  tokens: number;
  at: number;
}

export function createAttemptLimiter(now: () => number, limits: AttemptLimits = DEFAULT_ATTEMPT_LIMITS): AttemptLimiter {
  const msPerToken = 60_000 / limits.perMinute;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, t: number): void => {
    bucket.tokens = Math.min(limits.burst, bucket.tokens + Math.max(0, t - bucket.at) / msPerToken);
    bucket.at = t;
  };

  const forgetFull = (t: number): void => {
    for (const [key, bucket] of buckets) {
      refill(bucket, t);
      if (bucket.tokens >= limits.burst) buckets.delete(key);
    }
  };

  return {
    take(key) {
      const t = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= limits.maxKeys) forgetFull(t);
        bucket = { tokens: limits.burst, at: t };
        buckets.set(key, bucket);
      }
      refill(bucket, t);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, remaining: Math.floor(bucket.tokens) };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - bucket.tokens) * msPerToken) / 1000)) };
    },
  };
}
