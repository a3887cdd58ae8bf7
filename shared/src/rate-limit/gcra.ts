/**
 * The one token bucket of the platform, as GCRA (generic cell rate algorithm): a bucket of
 * `limit` tokens refilled evenly over `windowMs` (one token every `windowMs / limit`), kept
 * as a single number per key, the theoretical arrival time (TAT). Equivalent to a bucket
 * with continuous refill, but one timestamp is all the state, so the same rule runs in
 * memory (collectors' enrollment, setup page, thumbnails, simulators) and in a database row
 * (hub auth). Pure: time is an argument.
 *
 * Remaining tokens at `now` = (windowMs - (tat - now)) / interval, capped at `limit`.
 */
export interface RateRule {
  /** Tokens available at once (the burst). */
  limit: number;
  /** Time for an empty bucket to refill completely. */
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this hit. */
  remaining: number;
  /** When the bucket is full again (X-RateLimit-Reset), epoch ms. */
  resetAtMs: number;
  /** Retry-After on refusal, whole seconds, at least 1; 0 when allowed. */
  retryAfterSeconds: number;
  /** TAT to store: advanced when allowed, unchanged when refused. */
  nextTatMs: number;
}

const intervalOf = (rule: RateRule): number => rule.windowMs / rule.limit;

/** One hit. `tatMs`: the stored TAT, or null for a key never seen (a full bucket). */
export function takeToken(tatMs: number | null, nowMs: number, rule: RateRule): RateDecision {
  const interval = intervalOf(rule);
  const base = Math.max(tatMs ?? nowMs, nowMs);
  const next = base + interval;
  if (next - nowMs <= rule.windowMs) {
    return {
      allowed: true,
      limit: rule.limit,
      // 1e-9: 60_000 / 10 style intervals are exact, but thirds are not.
      remaining: Math.floor((rule.windowMs - (next - nowMs)) / interval + 1e-9),
      resetAtMs: next,
      retryAfterSeconds: 0,
      nextTatMs: next,
    };
  }
  return {
    allowed: false,
    limit: rule.limit,
    remaining: 0,
    resetAtMs: base,
    retryAfterSeconds: Math.max(1, Math.ceil((next - rule.windowMs - nowMs) / 1000)),
    nextTatMs: base,
  };
}

/**
 * A hit that always gets a token, possibly one not yet refilled: returns how long to wait
 * before using it. Callers that queue (image downloads) get slots in order instead of polling.
 */
export function reserveToken(tatMs: number | null, nowMs: number, rule: RateRule): { waitMs: number; nextTatMs: number } {
  const next = Math.max(tatMs ?? nowMs, nowMs) + intervalOf(rule);
  return { waitMs: Math.max(0, Math.ceil(next - nowMs - rule.windowMs)), nextTatMs: next };
}

/** True when the key's bucket is full at `nowMs`, so forgetting it changes nothing. */
export const isFull = (tatMs: number, nowMs: number): boolean => tatMs <= nowMs;
