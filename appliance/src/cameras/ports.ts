import type { Detection, DetectionImages } from '@alpr/shared/detection/schema';

/**
 * What the camera runners need from the rest of the appliance. main.ts wires the real
 * SQLite buffer, clock, randomness and pino logger; tests hand in the in-memory ones from
 * `memory.test-helper.ts`. Every port method may be sync (better-sqlite3) or async: runners
 * await them all.
 */

type MaybePromise<T> = T | Promise<T>;

/**
 * The buffer's answer for one detection (buffer `insertDetection` statuses). `refused`: captured
 * before the buffer's memory horizon (7 days), not stored; the camera may be acknowledged.
 */
export type SinkStatus = 'stored' | 'duplicate' | 'replaced' | 'refused';

export interface SinkItem {
  detection: Detection;
  /** Images received or fetched; a failed fetch leaves the kind out (error rule 3 in docs/cameras.md). */
  images: DetectionImages;
  /** The configured camera (`CameraConfig.id`) the detection came through. */
  source: string;
}

/**
 * Where detections go. `accept` resolves only once the detection is durably committed
 * (the buffer's transaction): runners acknowledge a camera or advance a cursor only after
 * it. A throw means "not committed": the runner keeps its cursor or answers 503.
 */
export interface DetectionSink {
  accept(item: SinkItem): MaybePromise<SinkStatus>;
  /**
   * Which of these detection ids were delivered before (with any outcome). Runners skip
   * them without fetching their images: cameras hand out old copies of reads (appended to
   * pull pages, re-sent after an outage, repeated by a catch-up query).
   */
  seen(ids: readonly string[]): MaybePromise<ReadonlySet<string>>;
}

/** Saved pull positions, one key per camera (buffer `getCursor`/`setCursor`). */
export interface CursorStore {
  get(key: string): MaybePromise<string | null>;
  set(key: string, value: string): MaybePromise<void>;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** Uniform in [0, 1), like Math.random. */
export type Random = () => number;

/**
 * Waits `ms`, or less when `signal` aborts; never rejects. Runners loop on it, so stopping
 * a runner is aborting its signal.
 */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

type LogFn = (obj: Record<string, unknown>, msg: string) => void;

/** The subset of a pino logger the runners use. */
export interface CameraLog {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** Everything a runner is handed besides its camera configuration. */
export interface RunnerDeps {
  sink: DetectionSink;
  cursors: CursorStore;
  clock: Clock;
  random: Random;
  log: CameraLog;
  sleep: Sleep;
}

export const systemClock: Clock = { now: () => Date.now() };

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
