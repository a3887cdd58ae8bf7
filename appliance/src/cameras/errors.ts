/**
 * A runner's cycle fails in two ways, both ApplianceError codes (appliance/src/errors.ts):
 * `camera_unreachable` and `sink_refused`. They are told apart because only the first says
 * anything about the camera: a refused sink (buffer full, disk error) must not mark a
 * healthy camera OFFLINE, yet both keep the cursor where it was and back off.
 */

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
