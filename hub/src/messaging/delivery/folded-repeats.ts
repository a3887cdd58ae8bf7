/**
 * How many later sightings the per-plate cooldown folded into an alert's message (fold.ts),
 * per alert: the most any of its chats was spared, and the capture time of the latest. Read
 * from the `alert_folded_repeats` view (migration 0023), which an alert query can also
 * LEFT JOIN on `alert_id` to carry the two fields in its payload.
 */
import type { DbSession } from '../../db/session.ts';

export interface FoldedRepeats {
  folded_repeats: number;
  /** ISO time; null when nothing was folded. */
  last_folded_at: string | null;
}

export const NO_FOLDED_REPEATS: FoldedRepeats = { folded_repeats: 0, last_folded_at: null };

/** Alerts with folded repeats, by id; an alert missing from the map had none. */
export async function foldedRepeatsByAlert(db: DbSession, alertIds: readonly string[]): Promise<Map<string, FoldedRepeats>> {
  const result = new Map<string, FoldedRepeats>();
  if (alertIds.length === 0) return result;
  const rows = await db.sql<{ alert_id: string; folded_repeats: number; last_folded_at: Date | null }>(
    `SELECT alert_id, folded_repeats, last_folded_at FROM alert_folded_repeats
     WHERE alert_id IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
    [JSON.stringify(alertIds)],
  );
  for (const r of rows)
    result.set(String(r.alert_id), {
      folded_repeats: Number(r.folded_repeats),
      last_folded_at: r.last_folded_at ? new Date(r.last_folded_at).toISOString() : null,
    });
  return result;
}
