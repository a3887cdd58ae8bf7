import type { BatchLimits, PendingStats } from './ports.ts';

/** docs/uplink.md: batch window 5-30 s, 50 detections, 5 MB. */
export const MIN_WINDOW_SECONDS = 5;
export const MAX_WINDOW_SECONDS = 30;
export const DEFAULT_WINDOW_SECONDS = 10;
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxItems: 50, maxBytes: 5 * 1024 * 1024 };

export interface WindowConfig {
  /** Window for a camera with no specific setting (default 10 s). */
  defaultSeconds: number;
  /**
   * Per-camera window in seconds, derived by the caller from the camera type (e.g. a
   * vendor_a pull camera polled every 2 s can use 5 s; a quiet vendor_b site 30 s).
   * A getter, because cameras are added and reconfigured at runtime.
   */
  forCamera?: (cameraId: string) => number | undefined;
}

const clampWindow = (seconds: number): number => Math.min(MAX_WINDOW_SECONDS, Math.max(MIN_WINDOW_SECONDS, seconds));

/**
 * The window of the next batch is the SMALLEST window among the cameras that have
 * waiting items: a batch carries every camera's items, so it must leave in time for the
 * most latency-sensitive camera in it. No waiting cameras: the default.
 */
export function windowMsFor(cameraIds: readonly string[], config: WindowConfig): number {
  let seconds = Number.POSITIVE_INFINITY;
  for (const id of cameraIds) {
    seconds = Math.min(seconds, config.forCamera?.(id) ?? config.defaultSeconds);
  }
  if (!Number.isFinite(seconds)) seconds = config.defaultSeconds;
  return clampWindow(seconds) * 1000;
}

export type SendReason = 'catch_up' | 'count' | 'bytes' | 'window';

export type UploadDecision = { action: 'idle' } | { action: 'wait'; untilMs: number } | { action: 'send'; reason: SendReason };

export interface DecideInput {
  nowMs: number;
  stats: PendingStats;
  limits: BatchLimits;
  windowMs: number;
}

/**
 * Whether to upload now. Any trigger fires a batch:
 * - catch_up: more than one batch is waiting (after an outage): send at once, and the loop
 *   keeps sending while this holds, so draining runs at link speed, not window speed;
 * - count / bytes: a full batch is waiting;
 * - window: the oldest waiting item has waited the window.
 */
export function decideUpload({ nowMs, stats, limits, windowMs }: DecideInput): UploadDecision {
  if (stats.count <= 0 || stats.oldestReceivedMs === null) return { action: 'idle' };
  const moreThanOneBatch = stats.count > limits.maxItems || (stats.bytes > limits.maxBytes && stats.count > 1);
  if (moreThanOneBatch) return { action: 'send', reason: 'catch_up' };
  if (stats.count >= limits.maxItems) return { action: 'send', reason: 'count' };
  if (stats.bytes >= limits.maxBytes) return { action: 'send', reason: 'bytes' };
  const dueMs = stats.oldestReceivedMs + windowMs;
  if (nowMs >= dueMs) return { action: 'send', reason: 'window' };
  // A wall clock stepped backwards (NTP after boot) must not park a batch for hours.
  return { action: 'wait', untilMs: Math.min(dueMs, nowMs + windowMs) };
}
