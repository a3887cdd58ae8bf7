/** When retention removed an image (so a link to it answers 410 with the date, not 404). */
import type { DbSession } from '../db/session.ts';

export async function imageRemovedAt(db: DbSession, sha256: string): Promise<Date | null> {
  const [removed] = await db.sql<{ removed_at: Date }>('SELECT removed_at FROM removed_images WHERE sha256 = $1', [sha256]);
  return removed ? removed.removed_at : null;
}
