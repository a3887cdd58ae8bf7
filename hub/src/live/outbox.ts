/**
 * A connection's outgoing queue (docs/live.md "Rates"): at most 100 server messages a second
 * and the excess waits in a bounded queue. Pure over an injected clock; the connection
 * calls `take` when it may send. What does not fit, by kind:
 *   - `detection` (a high-volume feed): dropped, counted, and reported once in an `error`
 *     message (`code: "overflow"`) when the queue has room again;
 *   - `alert`: never dropped silently. It displaces a queued detection if there is one;
 *     otherwise the connection must be closed (1013) and the client catches up over
 *     `GET /api/v1/alerts?since=`, which loses nothing;
 *   - everything else (ping, replies, errors, collector status) is small and rare: queued,
 *     and counted against the same bound.
 */
import { takeToken } from '@alpr/shared/rate-limit/index';

export const SERVER_MESSAGES_PER_SECOND = 100;
export const OUTBOX_CAPACITY = 1_000;

export interface QueuedMessage {
  kind: 'detection' | 'alert' | 'other';
  text: string;
}

export type Offer = 'queued' | 'dropped' | 'overflow';

export class Outbox {
  private readonly queue: QueuedMessage[] = [];
  private tat: number | null = null;
  dropped = 0;
  private unreportedDrops = 0;

  constructor(
    private readonly capacity = OUTBOX_CAPACITY,
    private readonly perSecond = SERVER_MESSAGES_PER_SECOND,
  ) {}

  get length(): number {
    return this.queue.length;
  }

  /** `overflow`: an alert found the queue full of alerts; close the connection. */
  offer(message: QueuedMessage): Offer {
    if (this.queue.length < this.capacity) {
      this.queue.push(message);
      return 'queued';
    }
    if (message.kind === 'detection') {
      this.dropped += 1;
      this.unreportedDrops += 1;
      return 'dropped';
    }
    const detection = this.queue.findIndex((m) => m.kind === 'detection');
    if (detection >= 0) {
      this.queue.splice(detection, 1);
      this.dropped += 1;
      this.unreportedDrops += 1;
      this.queue.push(message);
      return 'queued';
    }
    return message.kind === 'alert' ? 'overflow' : 'dropped';
  }

  /** Drops not yet reported to the client, reset by reading. */
  takeUnreportedDrops(): number {
    const n = this.unreportedDrops;
    this.unreportedDrops = 0;
    return n;
  }

  /**
   * Messages that may go out now under the rate, in order; `waitMs` is when to ask again
   * (0: nothing waiting).
   */
  take(nowMs: number): { messages: QueuedMessage[]; waitMs: number } {
    const messages: QueuedMessage[] = [];
    while (this.queue.length > 0) {
      const decision = takeToken(this.tat, nowMs, { limit: this.perSecond, windowMs: 1000 });
      if (!decision.allowed) {
        // The next token frees when the bucket's theoretical arrival time leaves the window.
        const waitMs = Math.ceil(Math.max(this.tat ?? nowMs, nowMs) + 1000 / this.perSecond - nowMs - 1000);
        return { messages, waitMs: Math.max(1, waitMs) };
      }
      this.tat = decision.nextTatMs;
      messages.push(this.queue.shift() as QueuedMessage);
    }
    return { messages, waitMs: 0 };
  }
}
