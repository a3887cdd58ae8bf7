/**
 * Token bucket for the NVR's image endpoints. vendor_b consoles allow about 10 requests/s
 * and answer 429 beyond (vendor-formats §2.1 [B2]). The clock is injected so a test can
 * freeze time and see exactly `capacity` successes.
 */
export interface RateLimiter {
  /** True when the request may proceed (a token was taken). */
  take(): boolean;
}

export function createRateLimiter(perSecond: number, now: () => number): RateLimiter {
  let tokens = perSecond;
  let last = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(perSecond, tokens + ((t - last) / 1000) * perSecond);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
