export { isFull, reserveToken, takeToken } from './gcra.ts';
export type { RateDecision, RateRule } from './gcra.ts';
export { createMemoryRateLimiter } from './memory.ts';
export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './memory.ts';
