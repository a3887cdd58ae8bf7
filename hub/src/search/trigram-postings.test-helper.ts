/**
 * For tests that add or remove detections: the trigram postings (migration 0037), fresh and
 * sealed in blocks (0046), against what the stored detections imply, both ways. A pattern
 * search counts from the postings, so one left behind by a removed read, one missing for a
 * stored one, or one in both tiers is a wrong answer.
 */
import type { DbSession } from '../db/session.ts';

const implied = `SELECT g.trigram, d.captured_at, d.id, d.collector_id, d.plate_normalized::text
  FROM detections d CROSS JOIN LATERAL unnest(alpr_plate_trigrams(d.plate_normalized)) AS g (trigram)`;
const stored = `SELECT t.trigram, t.captured_at, t.id, t.collector_id, t.plate_normalized::text FROM detection_trigrams t
  UNION ALL
  SELECT b.trigram, u.captured_at, u.id, u.collector_id, u.plate_normalized FROM trigram_blocks b
    CROSS JOIN LATERAL unnest(b.captured_ats, b.ids, b.collector_ids, b.plates) AS u (captured_at, id, collector_id, plate_normalized)`;

/**
 * Postings with no detection behind them (`stale`), detections' postings not stored
 * (`missing`), how many are stored, how many of them sealed, and blocks whose own summary
 * (trigram, first and last posting, count, order newest first) disagrees with their postings.
 */
export async function postingsAgainstDetections(db: DbSession): Promise<{ stored: number; sealed: number; stale: number; missing: number; badBlocks: number }> {
  const [row] = await db.sql<{ stored: string; sealed: string; stale: string; missing: string; bad: string }>(
    `SELECT (SELECT count(*) FROM (${stored}) AS a)::text AS stored,
            (SELECT coalesce(sum(n), 0) FROM trigram_blocks)::text AS sealed,
            (SELECT count(*) FROM ((${stored}) EXCEPT ALL (${implied})) AS s)::text AS stale,
            (SELECT count(*) FROM ((${implied}) EXCEPT ALL (${stored})) AS m)::text AS missing,
            (SELECT count(*) FROM trigram_blocks b
              WHERE b.n <> cardinality(b.ids) OR b.n <> cardinality(b.captured_ats) OR b.n <> cardinality(b.collector_ids) OR b.n <> cardinality(b.plates)
                 OR b.newest_at <> b.captured_ats[1] OR b.newest_id <> b.ids[1] OR b.oldest_at <> b.captured_ats[b.n]
                 OR EXISTS (SELECT 1 FROM generate_series(1, b.n - 1) AS i
                             WHERE (b.captured_ats[i], b.ids[i]) <= (b.captured_ats[i + 1], b.ids[i + 1]))
                 OR EXISTS (SELECT 1 FROM unnest(b.plates) AS p (plate) WHERE NOT b.trigram = ANY (alpr_plate_trigrams(p.plate))))::text AS bad`,
  );
  return { stored: Number(row?.stored), sealed: Number(row?.sealed), stale: Number(row?.stale), missing: Number(row?.missing), badBlocks: Number(row?.bad) };
}
