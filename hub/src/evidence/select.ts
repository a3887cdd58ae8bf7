/**
 * Which detections an export holds (docs/evidence-export.md): the search's own conditions,
 * newest first, one past the cap so a search that matches too many is told so instead of
 * being cut short silently.
 */
import type { DbSession } from '../db/session.ts';
import type { SearchQuery } from '../search/params.ts';
import { prepareSearch } from '../search/search.ts';
import { buildSearch } from '../search/sql.ts';

export async function exportedDetectionIds(db: DbSession, query: SearchQuery, cap: number): Promise<string[]> {
  const built = buildSearch(query);
  const rows = await db.transaction(async (tx) => {
    await prepareSearch(tx, query);
    return tx.sql<{ id: string }>(`SELECT d.id::text AS id FROM detections d WHERE ${built.where} ORDER BY ${built.orderBy} LIMIT ${cap + 1}`, built.params);
  });
  return rows.map((r) => r.id);
}
