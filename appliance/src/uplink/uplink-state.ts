/**
 * What the diagnostics page and the heartbeat show about the uplink. Plain data, copied
 * out by `state()`, so a reader can never change the loop.
 */
export const KEY_STATUSES = ['ok', 'rejected', 'unknown'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export type UplinkErrorKind = 'key_rejected' | 'hub_refused' | 'network_or_server' | 'no_progress' | 'internal';

export interface UplinkError {
  atMs: number;
  kind: UplinkErrorKind;
  message: string;
  status?: number;
}

export interface UplinkState {
  running: boolean;
  /** An upload (or a buffer read before it) is under way. */
  busy: boolean;
  /** ok: the hub took the key last time; rejected: last answer was 401; unknown: not tried yet. */
  keyStatus: KeyStatus;
  lastAttemptAtMs: number | null;
  lastSuccessAtMs: number | null;
  lastError: UplinkError | null;
  consecutiveFailures: number;
  /**
   * No upload before this: backoff after a failure, or the hub's Retry-After while the
   * collector is suspended (a steady wait, never a growing one); null when neither.
   */
  retryAtMs: number | null;
  /**
   * An admin suspended this site on the hub (a 403 `collector_suspended`, or `collector_status:
   * disabled` in a heartbeat answer): detections are kept and sent once it is resumed.
   * Cleared by the first accepted upload or a heartbeat answer saying `active`.
   */
  suspended: boolean;
  suspendedSinceMs: number | null;
  /**
   * The hub answered 401 `collector_replaced`: another device took this collector over, so this
   * box no longer uploads (its key will never work again). Items are kept all the same.
   */
  replaced: boolean;
  /** No upload before this (hub backpressure after a 202); null when none. */
  backpressureUntilMs: number | null;
  backpressureReason: string | null;
  totals: {
    batches: number;
    requests: number;
    bytes: number;
    stored: number;
    duplicate: number;
    rejected: number;
  };
}

export const initialUplinkState = (): UplinkState => ({
  running: false,
  busy: false,
  keyStatus: 'unknown',
  lastAttemptAtMs: null,
  lastSuccessAtMs: null,
  lastError: null,
  consecutiveFailures: 0,
  retryAtMs: null,
  suspended: false,
  suspendedSinceMs: null,
  replaced: false,
  backpressureUntilMs: null,
  backpressureReason: null,
  totals: { batches: 0, requests: 0, bytes: 0, stored: 0, duplicate: 0, rejected: 0 },
});

export const copyState = (state: UplinkState): UplinkState => ({
  ...state,
  lastError: state.lastError ? { ...state.lastError } : null,
  totals: { ...state.totals },
});
