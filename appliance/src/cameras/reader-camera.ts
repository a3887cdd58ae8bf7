import type { RoutedOutcome } from '@alpr/shared/adapters/factory';
import type { AdapterContext, ReaderType } from '@alpr/shared/adapters/types';
import { contextOf } from './config.ts';
import type { CameraConfig } from './config.ts';

/**
 * Which configured camera a plate reader's post belongs to (docs/readers.md). Readers carry no
 * MAC: a post is matched by the camera named in the URL (`?camera=<our id>`, for CodeProject.AI
 * whose answer names none), else by the reader's own camera name (Plate Recognizer `camera_id`,
 * OpenALPR `site/camera`, the generic `camera`) equal to our id or listed in `cameraIds`.
 * Unmatched posts are still taken (with a stand-in MAC) while unknown cameras are accepted.
 */

/** `?camera=`: our camera id alphabet, so nothing odd reaches a log line or a detection. */
export const CAMERA_QUERY = /^[A-Za-z0-9._-]{1,64}$/;

export function readerCameraFor(
  type: ReaderType,
  outcome: RoutedOutcome,
  cameras: readonly CameraConfig[],
  named: string | undefined,
): CameraConfig | undefined {
  const own = cameras.filter((c) => c.vendor === type);
  if (named !== undefined) return own.find((c) => c.id === named);
  const names = new Set(outcome.detections.map((d) => d.detection.camera.id));
  return own.find((c) => names.has(c.id) || (c.cameraIds?.some((id) => names.has(id)) ?? false));
}

/** The adapter context: the configured camera's (id, MAC, zone), else the name from the URL. */
export function readerContext(camera: CameraConfig | undefined, named: string | undefined): AdapterContext {
  if (camera) return contextOf(camera);
  return named !== undefined ? { camera: { id: named } } : {};
}
