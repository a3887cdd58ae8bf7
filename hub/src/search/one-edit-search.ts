/**
 * The plates a one-edit search matches (docs/search.md "One edit"): the query key's deletion
 * neighbourhood looked up in `plate_edit_keys` (migration 0025; at most 21 index probes for
 * a 20-character query), then each candidate checked for real, since keys shared by a
 * transposition or a similar two-edit pair would otherwise let decoys through.
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import type { DbSession } from '../db/session.ts';
import { classifyOneEdit, deletionNeighbourhood, type PlateMatchDetail } from '@alpr/shared/detection/one-edit';

export interface OneEditPlate {
  plate: string;
  match: PlateMatchDetail;
}

/** Best rank first, then the plate, so pages are stable. */
export async function oneEditPlates(tx: DbSession, query: { normalized: string; key: string }): Promise<OneEditPlate[]> {
  const candidates = await tx.sql<{ plate_normalized: string }>(
    `SELECT DISTINCT k.plate_normalized FROM plate_edit_keys k
     WHERE k.edit_key = ANY (ARRAY(SELECT json_array_elements_text($1::json)))`,
    [JSON.stringify(deletionNeighbourhood(query.key))],
  );
  const out: OneEditPlate[] = [];
  for (const { plate_normalized: plate } of candidates) {
    const match = classifyOneEdit(query.normalized, plate, confusionKey);
    if (match) out.push({ plate, match });
  }
  return out.sort((a, b) => a.match.rank - b.match.rank || (a.plate < b.plate ? -1 : a.plate > b.plate ? 1 : 0));
}
