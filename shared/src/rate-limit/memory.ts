import { isFull, reserveToken, takeToken, type RateDecision, type RateRule } from './gcra.ts';

export interface MemoryRateLimiterOptions extends RateRule {
  /** Keys remembered at most; full buckets are forgotten first, then see `overflow`. */
  maxKeys?: number;
  /**
   * When every remembered bucket is still limiting: `evict-oldest` (default) drops the oldest
   * keys, so memory stays bounded against a flood from many addresses; `keep-limited` never
   * forgets a limiting bucket and lets the table grow past `maxKeys`, for places with few
   * legitimate addresses (a LAN) where resetting an attacker's limit is the worse outcome.
   */
  overflow?: 'evict-oldest' | 'keep-limited';
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
    if (options.overflow === 'keep-limited') return;
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
