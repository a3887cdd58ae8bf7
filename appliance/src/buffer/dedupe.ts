import type { UploadState } from './schema/detections.ts';

/**
 * The read the buffer kept for a camera MAC + plate within the window: its confidence and
 * where its row is now (`gone` = uploaded and deleted, or evicted).
 */
export interface KeptRead {
  confidence: number;
  state: UploadState | 'gone';
  /**
   * The row has been offered to the hub at least once (an upload that failed or was cut
   * short may still have reached it). Such a row is never rewritten under another id.
   */
  sent: boolean;
}

/**
 * - `store`: no kept read of this plate nearby; a new detection.
 * - `replace`: the new read is better and the kept one has not left yet; swap it in place.
 * - `drop`: the kept read is at least as good (ties keep the first: no churn).
 * - `drop_better_late`: better, but the kept read is already on its way or at the hub (in
 *   flight, uploaded, or pending again after a failed or interrupted send): the hub keeps
 *   the id it has, and a second id for the same pass would be the duplicate the window
 *   prevents.
 */
export type DedupeDecision = 'store' | 'replace' | 'drop' | 'drop_better_late';

export function decideDedupe(kept: KeptRead | undefined, incomingConfidence: number): DedupeDecision {
  if (kept === undefined) return 'store';
  if (incomingConfidence <= kept.confidence) return 'drop';
  return kept.state === 'pending' && !kept.sent ? 'replace' : 'drop_better_late';
}

/** True when two capture times are within the window of each other (inclusive). */
export function withinWindow(aMs: number, bMs: number, windowMs: number): boolean {
  return Math.abs(aMs - bMs) <= windowMs;
}
