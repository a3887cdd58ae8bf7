import type { CameraVendor } from './config.ts';
import type { Clock } from './ports.ts';

/**
 * Per-camera health for the diagnostics page and the heartbeat (error rule 1 in docs/cameras.md: a
 * camera we cannot reach is OFFLINE). CONNECTING is the state before the first answer and
 * while a reconnect is under way after a failure.
 */
export const CAMERA_STATES = ['CONNECTING', 'ONLINE', 'OFFLINE'] as const;
export type CameraState = (typeof CAMERA_STATES)[number];

export interface CameraCounters {
  /** Detections handed to the sink (stored, replaced or duplicate). */
  reads: number;
  /** Items or payloads that could not be parsed (error rule 2 in docs/cameras.md). */
  errors: number;
  /** Images given up on after timeout/retry (error rule 3 in docs/cameras.md). */
  imageFailures: number;
  /** Images dropped because their bytes are not a JPEG/PNG within the size limit; the read was kept. */
  imagesNotImages: number;
  /** Image requests answered 429 (vendor_b thumbnail rate limit). */
  imageRateLimited: number;
  /** Connection attempts after a failure (error rule 1 in docs/cameras.md). */
  reconnects: number;
  /** Times the sink refused a detection (buffer full or broken); the read was retried. */
  sinkFailures: number;
  /** Reads the camera handed out again that the buffer already had: skipped, no image fetched. */
  alreadyDelivered: number;
  /** Reads captured more than the buffer's memory horizon (7 days) ago: not stored. */
  refusedTooOld: number;
  /** Reads whose capture time was corrected for the camera's clock (camera-clock.ts). */
  timesCorrected: number;
  /** Times the pull cursor was rewound because the camera's clock went back. */
  clockRewinds: number;
}

/** What the appliance knows of a camera's clock (docs/cameras.md "Camera clocks"). */
export interface CameraClockHealth {
  /** Camera minus true time, ms; positive: the camera is ahead. */
  offsetMs: number;
  /** Where it comes from: the device's own clock API, or its reads' capture vs arrival times. */
  source: 'device' | 'reads';
  checkedAt: string;
  /** UTC offset the camera reports, `+01:00`, when it reports one. */
  utcOffset: string | null;
  /** Plain-words warnings for the installer; empty when the clock is fine. */
  warnings: string[];
}

export interface CameraStatus {
  id: string;
  name: string;
  /** Where it was entered: on the hub or on this device's setup page (docs/cameras-central.md); absent for an unconfigured push source. */
  source?: 'hub' | 'local';
  vendor: CameraVendor;
  mode: 'pull' | 'push';
  state: CameraState;
  /** Message of the last failure, kept after recovery for diagnostics. */
  lastError: string | null;
  lastErrorAt: string | null;
  /** Last time the camera answered as expected (ISO UTC). */
  lastSuccessAt: string | null;
  /** Last time a detection was accepted from this camera (ISO UTC). */
  lastReadAt: string | null;
  counters: CameraCounters;
  /** Null until measured (a camera whose API has no clock and that sent no read yet). */
  clock: CameraClockHealth | null;
  /**
   * Pulled vendor_b cameras (vendor-b-pull.ts), ISO UTC: the last time the pull cursor moved
   * forward or the camera had nothing newer than it. The heartbeat's `cursor_age_seconds`
   * counts from here. Absent for every other camera, and until the first answered pull.
   */
  cursorCurrentAt?: string;
  /** Ordinary cameras (snapshot-camera.ts): frames taken, skipped as unchanged, dropped while the reader was busy, read; passages. */
  frames?: { taken: number; unchanged: number; dropped: number; read: number; passages: number; lastReadFrameAt: string | null };
}

export interface CameraStatusTracker {
  connecting(): void;
  online(): void;
  offline(error: string): void;
  /** A failure that says nothing about the connection (a broken payload, the sink). */
  noteError(error: string): void;
  count(counter: keyof CameraCounters, by?: number): void;
  read(): void;
  clock(health: CameraClockHealth): void;
  /** The pull cursor moved forward, or nothing newer than it is waiting. */
  cursorCurrent(): void;
  snapshot(): CameraStatus;
}

const emptyCounters = (): CameraCounters => ({
  reads: 0,
  errors: 0,
  imageFailures: 0,
  imagesNotImages: 0,
  imageRateLimited: 0,
  reconnects: 0,
  sinkFailures: 0,
  alreadyDelivered: 0,
  refusedTooOld: 0,
  timesCorrected: 0,
  clockRewinds: 0,
});

export function createStatusTracker(
  identity: { id: string; name: string; vendor: CameraVendor; mode: 'pull' | 'push'; source?: 'hub' | 'local' },
  clock: Clock,
): CameraStatusTracker {
  const iso = (): string => new Date(clock.now()).toISOString();
  const status: CameraStatus = {
    ...identity,
    // A push camera stays CONNECTING until its first post arrives.
    state: 'CONNECTING',
    lastError: null,
    lastErrorAt: null,
    lastSuccessAt: null,
    lastReadAt: null,
    counters: emptyCounters(),
    clock: null,
  };
  const noteError = (error: string): void => {
    status.lastError = error;
    status.lastErrorAt = iso();
  };
  return {
    connecting() {
      status.state = 'CONNECTING';
    },
    online() {
      status.state = 'ONLINE';
      status.lastSuccessAt = iso();
    },
    offline(error) {
      status.state = 'OFFLINE';
      noteError(error);
    },
    noteError,
    count(counter, by = 1) {
      status.counters[counter] += by;
    },
    read() {
      status.counters.reads += 1;
      status.lastReadAt = iso();
    },
    clock(health) {
      status.clock = health;
    },
    cursorCurrent() {
      status.cursorCurrentAt = iso();
    },
    snapshot: () => ({ ...status, counters: { ...status.counters }, clock: status.clock ? { ...status.clock, warnings: [...status.clock.warnings] } : null }),
  };
}
