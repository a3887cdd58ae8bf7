import { createMemoryRateLimiter } from '@alpr/shared/rate-limit/index';

/**
 * Token bucket for vendor_b image downloads (consoles rate-limit image
 * downloads, about 10 requests/s: docs/camera-formats.md "vendor_b auth and TLS"). Pure apart from
 * the injected clock.
 *
 * `reserve()` hands out the next slot and says how long to wait for it, so concurrent
 * fetches queue in order instead of polling the bucket.
 */
export interface TokenBucket {
  /** Takes a token (possibly one not yet refilled) and returns the wait in ms before using it. */
  reserve(): number;
}

export interface TokenBucketConfig {
  ratePerSecond: number;
  /** Tokens available at once (default 1: requests are spread evenly). */
  burst?: number;
}

/** The platform's one token bucket (`@alpr/shared/rate-limit`), one key per camera runner. */
export function createTokenBucket(config: TokenBucketConfig, now: () => number): TokenBucket {
  const rate = Math.max(config.ratePerSecond, 0.001);
  const burst = Math.max(1, config.burst ?? 1);
  const limiter = createMemoryRateLimiter({ limit: burst, windowMs: (burst * 1000) / rate, maxKeys: 1 }, now);
  return { reserve: () => limiter.reserve('images') };
}
