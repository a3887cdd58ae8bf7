import { isFull, reserveToken, takeToken, type RateDecision, type RateRule } from './gcra.ts';

export interface MemoryRateLimiterOptions extends RateRule {
  /** Keys remembered at most; full buckets are forgotten first, then the oldest. */
  maxKeys?: number;
}

export interface MemoryRateLimiter {
  /** One hit against `key` (refused hits take nothing). */
  take(key: string): RateDecision;
  /** A token for `key` now or later: the wait in ms before using it. */
  reserve(key: string): number;
  /** Keys currently remembered (for tests of the memory bound). */
  size(): number;
}

/**
 * GCRA buckets per key in process memory: one process, limits reset on restart. The clock
 * is injected (`now`, epoch ms) so tests move time instead of sleeping.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions, now: () => number): MemoryRateLimiter {
  const maxKeys = Math.max(1, options.maxKeys ?? 10_000);
  const tats = new Map<string, number>();

  const makeRoom = (nowMs: number): void => {
    for (const [key, tat] of tats) if (isFull(tat, nowMs)) tats.delete(key);
    // Still full (a flood from many addresses): drop the oldest entries.
    for (const key of tats.keys()) {
      if (tats.size < maxKeys) break;
      tats.delete(key);
    }
  };
  const remember = (key: string, tat: number, nowMs: number): void => {
    if (!tats.has(key) && tats.size >= maxKeys) makeRoom(nowMs);
    tats.set(key, tat);
  };

  return {
    take(key) {
      const nowMs = now();
      const decision = takeToken(tats.get(key) ?? null, nowMs, options);
      if (decision.allowed) remember(key, decision.nextTatMs, nowMs);
      return decision;
    },
    reserve(key) {
      const nowMs = now();
      const { waitMs, nextTatMs } = reserveToken(tats.get(key) ?? null, nowMs, options);
      remember(key, nextTatMs, nowMs);
      return waitMs;
    },
    size: () => tats.size,
  };
}
