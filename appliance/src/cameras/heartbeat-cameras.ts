import type { HeartbeatCamera } from '@alpr/shared/protocol/collector';
import type { CameraStatus } from './status.ts';

/**
 * The heartbeat's `cameras` list (docs/protocol.md "Heartbeat", docs/health.md "What the
 * appliance reports") from the runners' statuses. Pure. The hub opens camera_offline,
 * camera_clock and cursor_stuck health alerts from it, so every field is cut to the hub's
 * limits here: one over-long error must not cost the whole heartbeat a 400.
 */

/** The hub takes at most 64 cameras, 5 clock warnings of 300 characters, a 300-character error, a 100-character name. */
export const HEARTBEAT_CAMERA_LIMITS = { cameras: 64, warnings: 5, text: 300, name: 100 } as const;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function heartbeatCameras(statuses: readonly CameraStatus[], now: Date): HeartbeatCamera[] {
  return statuses.slice(0, HEARTBEAT_CAMERA_LIMITS.cameras).map((s) => {
    const camera: HeartbeatCamera = {
      id: s.id,
      name: cut(s.name, HEARTBEAT_CAMERA_LIMITS.name),
      state: s.state,
      last_success_at: s.lastSuccessAt,
      last_error: s.lastError === null ? null : cut(s.lastError, HEARTBEAT_CAMERA_LIMITS.text),
    };
    // Unmeasured (no clock API and no read yet): no opinion, so an open camera_clock stays as it is.
    if (s.clock) camera.clock_warnings = s.clock.warnings.slice(0, HEARTBEAT_CAMERA_LIMITS.warnings).map((w) => cut(w, HEARTBEAT_CAMERA_LIMITS.text));
    // Only pulled vendor_b cameras keep a cursor time; before their first answered pull it is null (no opinion).
    if (s.vendor === 'vendor_b' && s.mode === 'pull') {
      camera.cursor_age_seconds = s.cursorCurrentAt ? Math.max(0, Math.floor((now.getTime() - Date.parse(s.cursorCurrentAt)) / 1000)) : null;
    }
    return camera;
  });
}
