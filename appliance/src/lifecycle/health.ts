import type { CameraState } from '../cameras/status.ts';
import type { KeyStatus } from '../uplink/uplink-state.ts';

/**
 * What the rollback watch looks at after a config_update (docs/protocol.md: a
 * configuration that causes failures is rolled back). main.ts builds a sample from the
 * camera runners' statuses and the uplink state.
 */
export interface HealthSample {
  /** `clockWarnings`: how many warnings the camera's clock check has now (camera-outcomes.ts). */
  cameras: readonly { id: string; state: CameraState; lastError?: string | null; clockWarnings?: number }[];
  /** Absent when no uplink runs (not claimed). */
  uplink?: { consecutiveFailures: number; keyStatus: KeyStatus; lastError?: string | null };
}

/**
 * 3 failed uploads in a row: one can be a blip on a cellular link, three within the watch
 * window (backoff starts at 1 s) means the new settings broke the path to the hub.
 */
export const UPLOAD_FAILURE_THRESHOLD = 3;

/**
 * Pure: the reasons to roll back, empty when the new configuration is healthy.
 * - A camera ONLINE before that was seen OFFLINE during the watch and is not ONLINE at its
 *   end. A camera that only restarts (CONNECTING) or recovers within the window is fine; a
 *   camera the new configuration removed is intended, not a failure.
 * - Uploads that worked before and now fail: the key rejected (401), or at least
 *   UPLOAD_FAILURE_THRESHOLD consecutive failures. Failures that predate the update are not
 *   blamed on it.
 */
export function detectRegressions(before: HealthSample, samples: readonly HealthSample[], threshold = UPLOAD_FAILURE_THRESHOLD): string[] {
  const last = samples[samples.length - 1];
  if (!last) return [];
  const reasons: string[] = [];
  for (const camera of before.cameras) {
    if (camera.state !== 'ONLINE') continue;
    const now = last.cameras.find((c) => c.id === camera.id);
    if (!now || now.state === 'ONLINE') continue;
    const wentOffline = samples.some((s) => s.cameras.some((c) => c.id === camera.id && c.state === 'OFFLINE'));
    if (wentOffline) reasons.push(`camera ${camera.id} went OFFLINE${now.lastError ? ` (${now.lastError})` : ''}`);
  }
  const was = before.uplink;
  const is = last.uplink;
  if (is) {
    if (is.keyStatus === 'rejected' && was?.keyStatus !== 'rejected') {
      reasons.push('the hub rejects the API key');
    } else if (is.consecutiveFailures >= threshold && (was?.consecutiveFailures ?? 0) < threshold) {
      reasons.push(`uploads failing (${is.consecutiveFailures} in a row${is.lastError ? `: ${is.lastError}` : ''})`);
    }
  }
  return reasons;
}
