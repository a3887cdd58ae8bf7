/** Every collector's id and site name, decommissioned ones too (their detections stay searchable). */
import type { DbSession } from '../db/session.ts';

export async function listCollectorNames(db: DbSession): Promise<{ id: string; name: string }[]> {
  return db.sql<{ id: string; name: string }>('SELECT id, site_name AS name FROM collectors ORDER BY site_name, id');
}
