import { takeToken } from '@alpr/shared/rate-limit/index';

/**
 * Pure rate-limit decisions (docs/auth.md). Two algorithms:
 * - sliding log, for per-user API endpoints: at most `limit` hits in any `window`;
 * - GCRA (a token bucket of `limit` tokens refilled evenly over `window`), for the
 *   per-address auth endpoints, which "tolerate bursts": 5 logins may come at once, and
 *   after that one more every 12 s instead of nothing for a whole minute.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** X-RateLimit-Reset: when the full allowance is back. */
  resetAt: Date;
  /** Retry-After on refusal (whole seconds, at least 1); 0 when allowed. */
  retryAfterSeconds: number;
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** `hits`: times of earlier accepted hits inside the window (any order). */
export function slidingWindowDecision(hits: readonly Date[], now: Date, limit: number, windowMs: number): RateDecision {
  const nowMs = now.getTime();
  const times = hits
    .map((h) => h.getTime())
    .filter((t) => t > nowMs - windowMs)
    .sort((a, b) => a - b);
  if (times.length < limit) {
    const oldest = times[0] ?? nowMs;
    return { allowed: true, limit, remaining: limit - times.length - 1, resetAt: new Date(oldest + windowMs), retryAfterSeconds: 0 };
  }
  // The hit whose expiry frees one slot: with n >= limit hits, the (n - limit)th oldest.
  const freeing = (times[times.length - limit] as number) + windowMs;
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetAt: new Date((times[times.length - 1] as number) + windowMs),
    retryAfterSeconds: seconds(freeing - nowMs),
  };
}

export interface BucketDecision extends RateDecision {
  /** Theoretical arrival time to store when allowed (GCRA state). */
  nextTat: Date;
}

/**
 * `tat`: stored theoretical arrival time, or null for a key never seen (full bucket). The
 * bucket itself is the platform's one GCRA (`@alpr/shared/rate-limit`); this adapts it to
 * the Date-based store.
 */
export function tokenBucketDecision(tat: Date | null, now: Date, limit: number, windowMs: number): BucketDecision {
  const d = takeToken(tat?.getTime() ?? null, now.getTime(), { limit, windowMs });
  return {
    allowed: d.allowed,
    limit: d.limit,
    remaining: d.remaining,
    resetAt: new Date(d.resetAtMs),
    retryAfterSeconds: d.retryAfterSeconds,
    nextTat: new Date(d.nextTatMs),
  };
}
