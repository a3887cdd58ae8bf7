/**
 * The delivery retry rule (docs/messaging.md "Failures"),
 * pure: the first send and up to three retries after 1 s, 5 s and 30 s; when the third
 * retry fails too the item is `failed` and logged for review. A 429 is not a failure of the
 * item (the platform asks everyone to wait): it pauses all sending and costs no attempt.
 */
import { retryAfter, type RetryDecision } from '../../platform/loops/backoff.ts';

export const RETRY_DELAYS_MS = [1_000, 5_000, 30_000] as const;
/** Tries in all: the first send plus one per delay. */
export const MAX_DELIVERY_TRIES = RETRY_DELAYS_MS.length + 1;

export type DeliveryRetry = RetryDecision;

/** `tries`: sends made so far, the failed one included. */
export function deliveryRetry(tries: number, now: Date): DeliveryRetry {
  return retryAfter(RETRY_DELAYS_MS, tries, now);
}

/**
 * A 429's global pause: the platform's retry_after, doubled for every 429 in a row (exponential
 * backoff applied to every chat at once), at most 10 minutes.
 */
export function pauseAfter429(retryAfterSeconds: number | undefined, consecutive: number): number {
  const base = Math.max(1, retryAfterSeconds ?? 1) * 1000;
  return Math.min(600_000, base * 2 ** Math.max(0, consecutive - 1));
}
