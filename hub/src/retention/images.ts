import type { DbSession } from '../db/session.ts';
import type { ImageStore } from '../images/image-store.ts';

/**
 * Image retention (docs/retention.md "Images"). Images are content-addressed and may be
 * shared by several detections, so one goes only when every detection that references it
 * was captured before the image cutoff and none of them is under a hold record. Candidates
 * come from the capture-time window this phase has not looked at yet (`retention_progress`),
 * plus the images of detections whose hold records this run removes (their window passed
 * while they were held).
 */
export interface ImageRetentionReport {
  /** Distinct image hashes looked at. */
  checked: number;
  removed: number;
  /** Still referenced by a detection younger than the cutoff. */
  keptInUse: number;
  /** Referenced by a detection under a hold record. */
  keptHeld: number;
  /** Already gone from the store (recorded as removed all the same). */
  missing: number;
  /** Capture time up to which images have now been looked at. */
  doneUntil: string | null;
}

/** Candidate rows read per round: bounds memory and the ANY() list on a first run over years. */
const ROUND_ROWS = 20_000;

export interface ImagePhaseInput {
  cutoff: Date;
  /** Hold records ending before this are removed by this run: they no longer protect images. */
  holdsCutoff: Date;
  /** Hashes freed by this run's hold-record removals. */
  released: readonly string[];
  dryRun: boolean;
}

export async function retainImages(tx: DbSession, store: ImageStore, input: ImagePhaseInput): Promise<ImageRetentionReport> {
  const report: ImageRetentionReport = { checked: 0, removed: 0, keptInUse: 0, keptHeld: 0, missing: 0, doneUntil: null };
  const [progress] = await tx.sql<{ done_until: Date }>(`SELECT done_until FROM retention_progress WHERE kind = 'images'`);
  let from = progress?.done_until ?? new Date(0);
  let extra = [...new Set(input.released)];
  for (;;) {
    const round = from < input.cutoff ? await windowCandidates(tx, from, input.cutoff) : { hashes: [], until: input.cutoff };
    const candidates = [...new Set([...round.hashes, ...extra])];
    extra = [];
    if (candidates.length > 0) await retireImages(tx, store, candidates, input, report);
    if (round.until > from) {
      from = round.until;
      report.doneUntil = from.toISOString();
      await tx.sql(
        `INSERT INTO retention_progress (kind, done_until) VALUES ('images', $1)
         ON CONFLICT (kind) DO UPDATE SET done_until = EXCLUDED.done_until`,
        [from],
      );
    }
    if (from >= input.cutoff) return report;
  }
}

/**
 * The next round of candidate hashes captured in [from, cutoff): at most ROUND_ROWS rows,
 * ending on a whole capture instant so the next round starts exactly after it.
 */
async function windowCandidates(tx: DbSession, from: Date, cutoff: Date): Promise<{ hashes: string[]; until: Date }> {
  const rows = await tx.sql<{ captured_at: Date; full_image_hash: string | null; crop_image_hash: string | null }>(
    `SELECT d.captured_at, d.full_image_hash, d.crop_image_hash FROM detections d
      WHERE d.captured_at >= $1 AND d.captured_at < $2
        AND (d.full_image_hash IS NOT NULL OR d.crop_image_hash IS NOT NULL)
      ORDER BY d.captured_at LIMIT $3`,
    [from, cutoff, ROUND_ROWS + 1],
  );
  let until = cutoff;
  let taken = rows;
  if (rows.length > ROUND_ROWS) {
    // Stop before the last instant read, which may continue past the limit.
    const last = rows[ROUND_ROWS]!.captured_at;
    taken = rows.filter((r) => r.captured_at < last);
    until = last;
    if (taken.length === 0) {
      // More than ROUND_ROWS rows share one instant: take them all at once.
      taken = await tx.sql(`SELECT d.captured_at, d.full_image_hash, d.crop_image_hash FROM detections d WHERE d.captured_at = $1`, [last]);
      until = new Date(last.getTime() + 1);
    }
  }
  const hashes = new Set<string>();
  for (const r of taken) {
    if (r.full_image_hash) hashes.add(r.full_image_hash);
    if (r.crop_image_hash) hashes.add(r.crop_image_hash);
  }
  return { hashes: [...hashes], until };
}

/**
 * Removes those of `candidates` no longer used: not referenced by a detection captured since
 * the image cutoff, nor by one under a hold record. Also the non-hit tier's way to let its
 * removed reads' images go (nonhits.ts): the removed rows no longer count as users.
 */
export async function retireImages(
  tx: DbSession,
  store: ImageStore,
  candidates: string[],
  input: Omit<ImagePhaseInput, 'released'>,
  report: ImageRetentionReport,
): Promise<void> {
  const fresh = await tx.sql<{ h: string }>(
    `SELECT c.h FROM unnest($1::text[]) AS c(h) WHERE NOT EXISTS (SELECT 1 FROM removed_images r WHERE r.sha256 = c.h)`,
    [candidates],
  );
  const todo = fresh.map((r) => r.h);
  if (todo.length === 0) return;
  report.checked += todo.length;
  // One pass over the young rows with a hashed list: no index on the hash columns (it would
  // cost every upload), and the daily run pays a scan of the last year instead.
  const inUse = new Set(
    (
      await tx.sql<{ h: string }>(
        `SELECT DISTINCT v.h::text AS h FROM detections d
           CROSS JOIN LATERAL (VALUES (d.full_image_hash), (d.crop_image_hash)) AS v(h)
          WHERE d.captured_at >= $2 AND v.h = ANY($1::bpchar[])`,
        [todo, input.cutoff],
      )
    ).map((r) => r.h),
  );
  const held = new Set(
    (
      await tx.sql<{ h: string }>(
        `SELECT DISTINCT v.h::text AS h FROM legal_holds lh
           JOIN detection_keys k ON k.detection_pk = lh.detection_id
           JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
           CROSS JOIN LATERAL (VALUES (d.full_image_hash), (d.crop_image_hash)) AS v(h)
          WHERE NOT coalesce(LEAST(lh.released_at, lh.hold_until) < $2, false) AND v.h = ANY($1::bpchar[])`,
        [todo, input.holdsCutoff],
      )
    ).map((r) => r.h),
  );
  const gone: string[] = [];
  for (const hash of todo) {
    if (held.has(hash)) report.keptHeld += 1;
    else if (inUse.has(hash)) report.keptInUse += 1;
    else gone.push(hash);
  }
  if (input.dryRun) report.removed += gone.length;
  else if (gone.length > 0) {
    // Locations forgotten in this transaction; the bytes go at the compaction after COMMIT.
    const stored = await store.remove(tx, gone);
    report.removed += stored.size;
    report.missing += gone.length - stored.size;
  }
  if (gone.length > 0) {
    await tx.sql(`INSERT INTO removed_images (sha256) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [gone]);
  }
}
