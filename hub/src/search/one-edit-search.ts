/**
 * The plates a one-edit search matches (docs/search.md "One edit"): the query key's deletion
 * neighbourhood looked up in `plate_edit_keys` (migration 0025; at most 21 index probes for
 * a 20-character query) and the plates of the reads not keyed yet, then each candidate checked for real, since keys shared by a
 * transposition or a similar two-edit pair would otherwise let decoys through.
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import type { DbSession } from '../db/session.ts';
import { unkeyedPlatesSql } from '../db/unkeyed-reads.ts';
import { classifyOneEdit, deletionNeighbourhood, type PlateMatchDetail } from '@alpr/shared/detection/one-edit';

export interface OneEditPlate {
  plate: string;
  match: PlateMatchDetail;
}

/** Best rank first, then the plate, so pages are stable. */
export async function oneEditPlates(tx: DbSession, query: { normalized: string; key: string }): Promise<OneEditPlate[]> {
  // Plus the plates of the reads not keyed yet (db/unkeyed-reads.ts), in the same statement so the
  // cursor and the keys are read in one snapshot; a one-edit match is within one character
  // of the query's length.
  const candidates = await tx.sql<{ plate_normalized: string }>(
    `SELECT k.plate_normalized FROM plate_edit_keys k
     WHERE k.edit_key = ANY (ARRAY(SELECT json_array_elements_text($1::json)))
     UNION
     ${unkeyedPlatesSql(`char_length(u.plate_normalized) BETWEEN $2::int - 1 AND $2::int + 1`)}`,
    [JSON.stringify(deletionNeighbourhood(query.key)), Array.from(query.normalized).length],
  );
  const out: OneEditPlate[] = [];
  for (const { plate_normalized: plate } of candidates) {
    const match = classifyOneEdit(query.normalized, plate, confusionKey);
    if (match) out.push({ plate, match });
  }
  return out.sort((a, b) => a.match.rank - b.match.rank || (a.plate < b.plate ? -1 : a.plate > b.plate ? 1 : 0));
}
