/** What was sent to a collector and what it answered, for admins (docs/admin-api.md): the newest 20. */
import type { CameraAck } from '@alpr/shared/protocol/collector';
import type { DbSession } from '../db/session.ts';

const SHOWN = 20;

export interface CommandRecord {
  id: string;
  type: string;
  status: string;
  ack_status: string | null;
  ack_detail: string | null;
  /** config_update: the collector's answer per camera (docs/cameras-central.md). */
  ack_cameras: CameraAck[] | null;
  created_at: string | null;
  delivered_at: string | null;
  acknowledged_at: string | null;
}

export async function listRecentCommands(db: DbSession, collectorId: string): Promise<CommandRecord[]> {
  const rows = await db.sql<{
    id: string;
    type: string;
    status: string;
    ack_status: string | null;
    ack_detail: string | null;
    ack_cameras: CameraAck[] | string | null;
    created_at: Date;
    delivered_at: Date | null;
    acknowledged_at: Date | null;
  }>(
    `SELECT id, type, status, ack_status, ack_detail, ack_cameras, created_at, delivered_at, acknowledged_at FROM commands
      WHERE collector_id = $1 ORDER BY commands.created_at DESC LIMIT ${SHOWN}`,
    [collectorId],
  );
  const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());
  // PGlite hands jsonb back parsed, postgres.js too; a string is parsed for either's older versions.
  const cameras = (v: CameraAck[] | string | null): CameraAck[] | null => (typeof v === 'string' ? (JSON.parse(v) as CameraAck[]) : v);
  return rows.map((r) => ({
    ...r,
    ack_cameras: cameras(r.ack_cameras),
    created_at: iso(r.created_at),
    delivered_at: iso(r.delivered_at),
    acknowledged_at: iso(r.acknowledged_at),
  }));
}
