import { createMemoryRateLimiter } from '../../shared/src/rate-limit/index.ts';

/**
 * Token bucket for the NVR's image endpoints. vendor_b consoles allow about 10 requests/s
 * and answer 429 beyond (docs/camera-formats.md "vendor_b auth and TLS"). The clock is injected so
 * a test can freeze time and see exactly `capacity` successes.
 */
export interface RateLimiter {
  /** True when the request may proceed (a token was taken). */
  take(): boolean;
}

/** The platform's one token bucket (`shared/src/rate-limit`): `perSecond` at once, refilled each second. */
export function createRateLimiter(perSecond: number, now: () => number): RateLimiter {
  const limiter = createMemoryRateLimiter({ limit: perSecond, windowMs: 1000, maxKeys: 1 }, now);
  return { take: () => limiter.take('console').allowed };
}
