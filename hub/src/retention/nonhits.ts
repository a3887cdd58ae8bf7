import type { DbSession } from '../db/session.ts';
import type { ImageStore } from '../images/image-store.ts';
import { retireImages, type ImageRetentionReport } from './images.ts';

/**
 * The non-hit tier (docs/retention.md "Tiers and presets"; ADR 0007): reads captured before
 * the cutoff that no alert and no hold record references, and whose watchlist matching has
 * finished, leave the middle of their chains. The database function writes a tombstone per
 * row (position, previous hash, record hash; no plate, no images) and refuses a cutoff less
 * than an hour old. Their images go here when nothing kept still uses them.
 */
export interface NonHitReport {
  /** null: the tier is off (the default preset); nothing below was looked at. */
  cutoff: string | null;
  removed: number;
  chains: { collectorId: string; removed: number; fromSeq: number; uptoSeq: number }[];
  images: ImageRetentionReport;
  /** Reads older than the cutoff that stay, by why (a read with an alert and a hold counts as held). */
  kept: { hits: number; held: number; matchingUnfinished: number };
}

/** Rows per call: bounds the transaction's temporary table and the image list per round. */
const ROUND_ROWS = 20_000;

export const emptyNonHitReport = (cutoff: Date | null): NonHitReport => ({
  cutoff: cutoff?.toISOString() ?? null,
  removed: 0,
  chains: [],
  images: { checked: 0, removed: 0, keptInUse: 0, keptHeld: 0, missing: 0, doneUntil: null },
  kept: { hits: 0, held: 0, matchingUnfinished: 0 },
});

export interface NonHitInput {
  cutoff: Date;
  imagesCutoff: Date;
  holdsCutoff: Date;
  dryRun: boolean;
}

export async function removeNonHits(tx: DbSession, store: ImageStore, input: NonHitInput): Promise<NonHitReport> {
  const report = emptyNonHitReport(input.cutoff);
  const chains = new Map<string, NonHitReport['chains'][number]>();
  for (;;) {
    const rows = await tx.sql<{ collector_id: string; removed: string; from_seq: string; upto_seq: string; images: string[] }>(
      `SELECT collector_id::text AS collector_id, removed::text AS removed, from_seq::text AS from_seq, upto_seq::text AS upto_seq, images
         FROM retention_remove_non_hits($1, $2)`,
      [input.cutoff, ROUND_ROWS],
    );
    let round = 0;
    const images = new Set<string>();
    for (const row of rows) {
      const n = Number(row.removed);
      round += n;
      const chain = chains.get(row.collector_id) ?? { collectorId: row.collector_id, removed: 0, fromSeq: Number(row.from_seq), uptoSeq: 0 };
      chain.removed += n;
      chain.fromSeq = Math.min(chain.fromSeq, Number(row.from_seq));
      chain.uptoSeq = Math.max(chain.uptoSeq, Number(row.upto_seq));
      chains.set(row.collector_id, chain);
      for (const h of row.images) images.add(h.trim());
    }
    report.removed += round;
    if (images.size > 0) {
      await retireImages(tx, store, [...images], { cutoff: input.imagesCutoff, holdsCutoff: input.holdsCutoff, dryRun: input.dryRun }, report.images);
    }
    if (round < ROUND_ROWS) break;
  }
  report.chains = [...chains.values()].sort((a, b) => a.collectorId.localeCompare(b.collectorId));
  const [kept] = await tx.sql<{ hits: string; held: string; matching: string }>(
    `SELECT count(*) FILTER (WHERE NOT s.held AND s.hit)::text AS hits,
            count(*) FILTER (WHERE s.held)::text AS held,
            count(*) FILTER (WHERE NOT s.held AND NOT s.hit)::text AS matching
       FROM (SELECT EXISTS (SELECT 1 FROM legal_holds lh WHERE lh.detection_id = d.id) AS held,
                    EXISTS (SELECT 1 FROM alerts a WHERE a.detection_id = d.id) AS hit
               FROM detections d WHERE d.captured_at < $1) s`,
    [input.cutoff],
  );
  report.kept = { hits: Number(kept?.hits ?? 0), held: Number(kept?.held ?? 0), matchingUnfinished: Number(kept?.matching ?? 0) };
  return report;
}
