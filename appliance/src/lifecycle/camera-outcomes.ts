import type { CameraAck, CameraOutcome } from '@alpr/shared/protocol/collector';
import type { ConfigTree } from '../config/merge.ts';
import type { HealthSample } from './health.ts';

/**
 * The answer per camera a config_update acknowledgment carries (docs/cameras-central.md
 * "What the hub is told"), from the last health sample of the watch. Pure.
 * - ONLINE: `connected`, or `clock_warning` when its clock check has warnings;
 * - OFFLINE or CONNECTING after a refusal that names authentication (HTTP 401/403, Digest or
 *   token refused): `authentication_failed`;
 * - OFFLINE otherwise: `unreachable`; CONNECTING with no error yet: `not_connected`.
 */
const AUTH_FAILURE = /\b(401|403)\b|unauthori[sz]ed|forbidden|authenticat|credential|password|token/i;

export function outcomeOf(camera: HealthSample['cameras'][number]): CameraOutcome {
  if (camera.state === 'ONLINE') return (camera.clockWarnings ?? 0) > 0 ? 'clock_warning' : 'connected';
  if (camera.lastError && AUTH_FAILURE.test(camera.lastError)) return 'authentication_failed';
  if (camera.state === 'OFFLINE') return 'unreachable';
  return 'not_connected';
}

export function cameraAnswers(sample: HealthSample | undefined): CameraAck[] {
  return (sample?.cameras ?? []).slice(0, 64).map((c) => ({
    id: c.id,
    outcome: outcomeOf(c),
    ...(c.lastError ? { detail: c.lastError.slice(0, 300) } : {}),
  }));
}

const camerasOf = (layer: ConfigTree | undefined): Map<string, string> => {
  const list = layer?.['cameras'];
  const byId = new Map<string, string>();
  if (!Array.isArray(list)) return byId;
  for (const entry of list) {
    if (entry && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string') byId.set((entry as { id: string }).id, JSON.stringify(entry));
  }
  return byId;
};

/** Ids of the cameras a new central layer adds or changes (sealed credentials count as a change). */
export function changedCameraIds(previous: ConfigTree | undefined, next: ConfigTree): string[] {
  const before = camerasOf(previous);
  return [...camerasOf(next)].filter(([id, entry]) => before.get(id) !== entry).map(([id]) => id);
}

/**
 * A camera the update added or changed that the camera itself refuses (wrong password, token
 * or account) is a reason to roll back: the previous configuration keeps running and the hub
 * page says "authentication failed". A camera that is merely unreachable is not: it may not be
 * mounted yet, and it keeps being retried (docs/cameras-central.md "Rollback").
 */
export function refusedChangedCameras(changed: readonly string[], last: HealthSample | undefined): string[] {
  return (last?.cameras ?? [])
    .filter((c) => changed.includes(c.id) && outcomeOf(c) === 'authentication_failed')
    .map((c) => `camera ${c.id}: authentication failed${c.lastError ? ` (${c.lastError})` : ''}`);
}
