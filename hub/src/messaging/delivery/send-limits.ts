/**
 * The platform's sending limits (docs/messaging.md "Limits"), as the project's one token
 * bucket (GCRA, shared/rate-limit): about 1 message a second across chats with bursts of
 * 30, 30 a second to one chat, 20 a minute to a group (negative chat ids). Reserving returns
 * how long to wait, so messages leave in order instead of polling. Per hub process: run one
 * delivery worker per bot (docs/messaging.md) or the platform sees their sum.
 */
import { reserveToken, type RateRule } from '@alpr/shared/rate-limit/gcra';

export const ACROSS_CHATS: RateRule = { limit: 30, windowMs: 30_000 };
export const ONE_CHAT: RateRule = { limit: 30, windowMs: 1_000 };
export const ONE_GROUP: RateRule = { limit: 20, windowMs: 60_000 };

export interface SendLimits {
  /** Reserves a slot for one message to `chatId`; resolves to the milliseconds to wait. */
  reserve(chatId: string, nowMs: number): number;
}

export function createSendLimits(rules: { across?: RateRule; chat?: RateRule; group?: RateRule } = {}): SendLimits {
  let globalTat: number | null = null;
  const chats = new Map<string, number>();
  return {
    reserve(chatId, nowMs) {
      const chatRule = chatId.startsWith('-') ? (rules.group ?? ONE_GROUP) : (rules.chat ?? ONE_CHAT);
      const g = reserveToken(globalTat, nowMs, rules.across ?? ACROSS_CHATS);
      const c = reserveToken(chats.get(chatId) ?? null, nowMs, chatRule);
      globalTat = g.nextTatMs;
      chats.set(chatId, c.nextTatMs);
      // Forget full buckets now and then so the map stays as small as the active chats.
      if (chats.size > 10_000) for (const [key, tat] of chats) if (tat <= nowMs) chats.delete(key);
      return Math.max(g.waitMs, c.waitMs);
    },
  };
}
