/**
 * What the diagnostics page shows about the heartbeat. Plain data, copied out by `state()`.
 */
export interface HeartbeatState {
  running: boolean;
  intervalSeconds: number;
  lastAttemptAt: string | null;
  lastOkAt: string | null;
  lastError: string | null;
  /** The hub answered 401: the key was revoked or rotated away. */
  keyRejected: boolean;
  /** The 401 said `collector_replaced`: another device took this collector over on the hub. */
  replaced: boolean;
  /** `collector_status` of the last answer (`disabled`: suspended by an admin); null before one, or from an older hub. */
  collectorStatus: 'active' | 'disabled' | null;
  consecutiveFailures: number;
  nextBeatAt: string | null;
  commandsAcknowledged: number;
  commandsRefused: number;
}

export const initialHeartbeatState = (intervalSeconds: number): HeartbeatState => ({
  running: false,
  intervalSeconds,
  lastAttemptAt: null,
  lastOkAt: null,
  lastError: null,
  keyRejected: false,
  replaced: false,
  collectorStatus: null,
  consecutiveFailures: 0,
  nextBeatAt: null,
  commandsAcknowledged: 0,
  commandsRefused: 0,
});
