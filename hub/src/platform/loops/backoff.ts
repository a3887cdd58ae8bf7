/**
 * The retry rule the queue workers share (the bot's delivery, webhooks), pure: a list of
 * waits, one per retry; the try after the last wait that fails too is final.
 */
export type RetryDecision = { status: 'pending'; nextRetryAt: Date } | { status: 'failed' };

/** `tries`: attempts made so far, the failed one included. */
export function retryAfter(delaysMs: readonly number[], tries: number, now: Date): RetryDecision {
  const delay = delaysMs[tries - 1];
  if (delay === undefined) return { status: 'failed' };
  return { status: 'pending', nextRetryAt: new Date(now.getTime() + delay) };
}
