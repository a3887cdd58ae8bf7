/** What was sent to a collector and what it answered, for admins (docs/admin-api.md): the newest 20. */
import type { DbSession } from '../db/session.ts';

const SHOWN = 20;

export interface CommandRecord {
  id: string;
  type: string;
  status: string;
  ack_status: string | null;
  ack_detail: string | null;
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
    created_at: Date;
    delivered_at: Date | null;
    acknowledged_at: Date | null;
  }>(
    `SELECT id, type, status, ack_status, ack_detail, created_at, delivered_at, acknowledged_at FROM commands
      WHERE collector_id = $1 ORDER BY commands.created_at DESC LIMIT ${SHOWN}`,
    [collectorId],
  );
  const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at), delivered_at: iso(r.delivered_at), acknowledged_at: iso(r.acknowledged_at) }));
}
