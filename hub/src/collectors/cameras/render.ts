import type { cameras, SnapshotSettings } from '../../db/schema/cameras.ts';

export type CameraRow = typeof cameras.$inferSelect;

/** An ordinary camera's settings under the appliance's names (snapshot-config.ts there); a key it does not know is never sent. */
function snapshotEntry(s: SnapshotSettings | null): SnapshotSettings {
  return {
    ...(s?.snapshotUrl !== undefined ? { snapshotUrl: s.snapshotUrl } : {}),
    ...(s?.rtspUrl !== undefined ? { rtspUrl: s.rtspUrl } : {}),
    ...(s?.framesPerSecond !== undefined ? { framesPerSecond: s.framesPerSecond } : {}),
    ...(s?.region !== undefined ? { region: s.region } : {}),
    ...(s?.changeThreshold !== undefined ? { changeThreshold: s.changeThreshold } : {}),
    ...(s?.passageGapMs !== undefined ? { passageGapMs: s.passageGapMs } : {}),
  };
}

/**
 * The appliance configuration entry of one central camera (the appliance's camera schema,
 * appliance/src/cameras/config.ts): the hub's uuid is the camera id there, so detections
 * come back carrying it and search, alerts, the bot and evidence find the name here.
 * `sealed_credentials` is opened only by the device it was sealed for.
 */
export function applianceCamera(row: CameraRow, sealedCredentials: string | undefined): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    vendor: row.vendor,
    mode: row.mode,
    ...(row.host ? { host: row.host } : {}),
    port: row.port,
    ...(row.tls !== null ? { tls: row.tls } : {}),
    channel: row.channel,
    timezone: row.timezone,
    ...(row.mac ? { mac: row.mac } : {}),
    ...(row.direction ? { direction: row.direction } : {}),
    ...(row.sourceCameraIds ? { cameraIds: row.sourceCameraIds } : {}),
    ...(row.username ? { username: row.username } : {}),
    ...(sealedCredentials !== undefined ? { sealed_credentials: sealedCredentials } : {}),
    ...(row.vendor === 'snapshot' ? snapshotEntry(row.snapshotSettings) : {}),
    source: 'hub',
  };
}

/** Cameras that go to the device: enabled and not removed. */
export const isPushed = (row: CameraRow): boolean => row.enabled && row.removedAt === null;

/**
 * Pure: the configuration a collector is sent, the admin's `config` with the central cameras
 * added to its `cameras` list. An entry of the admin's own list with the id of a central
 * camera is dropped: the camera record wins (docs/cameras-central.md "Precedence").
 */
export function withCentralCameras(
  config: Record<string, unknown>,
  central: readonly Record<string, unknown>[],
  centralIds: ReadonlySet<string>,
): Record<string, unknown> {
  const own = Array.isArray(config['cameras']) ? (config['cameras'] as unknown[]) : [];
  const kept = own.filter((c) => !(c && typeof c === 'object' && centralIds.has(String((c as { id?: unknown }).id))));
  if (kept.length === 0 && central.length === 0 && !('cameras' in config)) return config;
  return { ...config, cameras: [...kept, ...central] };
}
