/**
 * The alert queue's failure rule (docs/alerts.md "Failures"), pure. An item is tried at
 * most `maxAttempts` times (a claim counts as an attempt, so a worker that dies holding it
 * spends one too); between tries it waits 2^attempts seconds, capped at a minute. After
 * the last try it is `failed` with its `last_error`, and stays so until an admin re-queues
 * it: a detection that cannot be matched five times over is a bug to look at, not to loop on.
 */
export const MAX_ALERT_ATTEMPTS = 5;
const BACKOFF_CAP_MS = 60_000;

export type RetryDecision = { status: 'pending'; nextRetryAt: Date } | { status: 'failed'; processedAt: Date };

export function retryDecision(attempts: number, now: Date, maxAttempts: number = MAX_ALERT_ATTEMPTS): RetryDecision {
  if (attempts >= maxAttempts) return { status: 'failed', processedAt: now };
  const delay = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** Math.max(0, attempts));
  return { status: 'pending', nextRetryAt: new Date(now.getTime() + delay) };
}
