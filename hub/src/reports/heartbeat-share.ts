/**
 * "Heartbeats received" on the reports page (docs/dashboard.md "Reports"): the heartbeats a
 * collector sent against those it owed over the 7-day window. It owes none before it was
 * claimed (its box had no key to send them with): counting the whole week made a fresh demo
 * read "0 %". Without a claim time (a collector claimed before the hub recorded it) the first
 * hour it was heard from starts the count. One is owed at the start, then one per interval.
 */
export interface HeartbeatShareInput {
  received: number;
  /** Start of the report's window, ms. */
  windowStart: number;
  /** When the collector was claimed, ms; null when the hub never recorded it. */
  claimedAt: number | null;
  /** Start of the earliest hour with a heartbeat in the window, ms. */
  firstHour: number;
  now: number;
  /** The interval the collector was told (collectors/heartbeat-interval.ts). */
  intervalSeconds: number;
}

export interface HeartbeatShare {
  expected: number;
  /** 0..100, rounded; never above 100 (a restart may send an extra one). */
  percent: number;
}

export function heartbeatShare(input: HeartbeatShareInput): HeartbeatShare {
  const since = Math.min(input.now, Math.max(input.windowStart, input.claimedAt ?? input.firstHour));
  const expected = Math.floor((input.now - since) / (input.intervalSeconds * 1000)) + 1;
  return { expected, percent: Math.min(100, Math.round((input.received / expected) * 100)) };
}
