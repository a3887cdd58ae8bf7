/**
 * For tests that add or remove detections: the trigram postings (migration 0037) against what
 * the stored detections imply, both ways. A pattern search counts from the postings, so one
 * left behind by a removed read, or missing for a stored one, is a wrong answer.
 */
import type { DbSession } from '../db/session.ts';

const implied = `SELECT g.trigram, d.captured_at, d.id, d.collector_id, d.plate_normalized
  FROM detections d CROSS JOIN LATERAL unnest(alpr_plate_trigrams(d.plate_normalized)) AS g (trigram)`;
const stored = `SELECT t.trigram, t.captured_at, t.id, t.collector_id, t.plate_normalized FROM detection_trigrams t`;

/** Postings with no detection behind them (`stale`) and detections' postings not stored (`missing`), and how many are stored. */
export async function postingsAgainstDetections(db: DbSession): Promise<{ stored: number; stale: number; missing: number }> {
  const [row] = await db.sql<{ stored: string; stale: string; missing: string }>(
    `SELECT (SELECT count(*) FROM detection_trigrams)::text AS stored,
            (SELECT count(*) FROM (${stored} EXCEPT ALL ${implied}) AS s)::text AS stale,
            (SELECT count(*) FROM (${implied} EXCEPT ALL ${stored}) AS m)::text AS missing`,
  );
  return { stored: Number(row?.stored), stale: Number(row?.stale), missing: Number(row?.missing) };
}
