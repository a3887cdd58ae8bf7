import { and, asc, eq, isNull } from 'drizzle-orm';
import { cameras } from '../../db/schema/cameras.ts';
import type { DbSession } from '../../db/session.ts';
import type { CameraRow } from './render.ts';
import { presentSnapshotSettings, type SnapshotRecord } from './snapshot-input.ts';

/**
 * A central camera as the admin API and dashboard show it: never a credential, only whether one
 * is set. The ordinary-camera fields (`snapshot_url` … `passage_gap_ms`) are null for the other
 * kinds, and null on an ordinary camera where the device's default applies.
 */
export interface CameraRecord extends SnapshotRecord {
  id: string;
  collector_id: string;
  name: string;
  vendor: string;
  mode: string;
  host: string | null;
  port: number;
  channel: number;
  timezone: string;
  tls: boolean | null;
  camera_ids: string[] | null;
  direction: { forward: string; reverse: string } | null;
  gps_latitude: number | null;
  gps_longitude: number | null;
  username: string | null;
  has_credentials: boolean;
  enabled: boolean;
  /** The collector's last answer for this camera after a push (null: none yet). */
  last_outcome: string | null;
  last_outcome_detail: string | null;
  last_outcome_at: string | null;
  created_at: string;
  updated_at: string;
}

export function presentCamera(row: CameraRow): CameraRecord {
  return {
    id: row.id,
    collector_id: row.collectorId,
    name: row.name,
    vendor: row.vendor,
    mode: row.mode,
    host: row.host === '' ? null : row.host,
    port: row.port,
    channel: row.channel,
    timezone: row.timezone,
    tls: row.tls,
    camera_ids: row.sourceCameraIds,
    direction: row.direction,
    gps_latitude: row.gpsLatitude === null ? null : Number(row.gpsLatitude),
    gps_longitude: row.gpsLongitude === null ? null : Number(row.gpsLongitude),
    username: row.username,
    has_credentials: row.escrowedCredentials !== null,
    enabled: row.enabled,
    ...presentSnapshotSettings(row.snapshotSettings),
    last_outcome: row.lastOutcome,
    last_outcome_detail: row.lastOutcomeDetail,
    last_outcome_at: row.lastOutcomeAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The collector's cameras not removed, oldest first. */
export async function listCameras(db: DbSession, collectorId: string): Promise<CameraRecord[]> {
  const rows = await db.db
    .select()
    .from(cameras)
    .where(and(eq(cameras.collectorId, collectorId), isNull(cameras.removedAt)))
    .orderBy(asc(cameras.createdAt), asc(cameras.id));
  return rows.map(presentCamera);
}
