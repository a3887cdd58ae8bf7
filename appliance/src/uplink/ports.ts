import type { Detection, DetectionImages } from '@alpr/shared/detection/schema';

/**
 * What the uplink needs from its surroundings. The real implementations (SQLite buffer,
 * Date.now, setTimeout, pino) are wired in `main.ts`; tests hand in in-memory ones.
 * Every buffer method may be sync (better-sqlite3) or async: the uplink awaits them all.
 */

/** The buffer's own row key (SQLite rowid or detection id): opaque to the uplink. */
export type BufferedItemId = number | string;

export interface BufferedItem {
  id: BufferedItemId;
  detection: Detection;
  images: DetectionImages;
  /** When the appliance committed the row (epoch ms); orders uploads and the time window. */
  receivedAtMs: number;
}

export interface BatchLimits {
  /** Detections per batch (50). */
  maxItems: number;
  /** Payload bytes per batch, images included (5 MB). */
  maxBytes: number;
}

export interface PendingStats {
  /** Rows still waiting for a hub acknowledgement (rejected rows excluded). */
  count: number;
  /** Their payload bytes (images plus metadata, the buffer's estimate). */
  bytes: number;
  /** `receivedAtMs` of the oldest waiting row, null when none. */
  oldestReceivedMs: number | null;
  /** Distinct `camera.id` values among waiting rows: they pick the time window. */
  cameraIds: readonly string[];
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Contract for the buffer:
 * - `nextBatch` returns the OLDEST waiting rows first (by `receivedAtMs`), at most
 *   `maxItems`, stopping before `maxBytes` would be exceeded but always at least one row
 *   when any waits (a single oversized row must still be able to leave). It may hide the
 *   rows it hands out (an in-flight state) or not; either way a row is only gone after
 *   `markUploaded` or `markRejected`.
 * - `markUploaded` deletes rows the hub acknowledged (stored or duplicate: committed there).
 * - `markRejected` takes a row out of the upload queue for good (the hub will never take
 *   it); keeping it for diagnostics until retention is the buffer's choice.
 * - `release` (optional) gets every row a delivery took with `nextBatch` but neither
 *   acknowledged nor rejected: failed request, missing from the results, left unsent after
 *   a 202. A buffer that hides rows in flight must make them waiting again here; one that
 *   never hides rows can leave it out. Called before the next `pendingStats`.
 */
export interface UplinkBufferPort {
  pendingStats(): MaybePromise<PendingStats>;
  nextBatch(limits: BatchLimits): MaybePromise<readonly BufferedItem[]>;
  markUploaded(ids: readonly BufferedItemId[]): MaybePromise<void>;
  markRejected(id: BufferedItemId, reason: string): MaybePromise<void>;
  release?(ids: readonly BufferedItemId[], reason: string): MaybePromise<void>;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export type TimerHandle = unknown;

/** setTimeout/clearTimeout behind a seam so tests move time instead of sleeping. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Uniform in [0, 1), like Math.random. */
export type Random = () => number;

type LogFn = (obj: Record<string, unknown>, msg: string) => void;

/** The subset of a pino logger the uplink uses. */
export interface UplinkLog {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
