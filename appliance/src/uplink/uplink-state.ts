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
  /** No upload before this (backoff after a failure); null when not backing off. */
  retryAtMs: number | null;
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
  backpressureUntilMs: null,
  backpressureReason: null,
  totals: { batches: 0, requests: 0, bytes: 0, stored: 0, duplicate: 0, rejected: 0 },
});

export const copyState = (state: UplinkState): UplinkState => ({
  ...state,
  lastError: state.lastError ? { ...state.lastError } : null,
  totals: { ...state.totals },
});
