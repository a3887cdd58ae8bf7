import { writeAudit } from '../platform/audit-writer.ts';
import type { Clock } from '../platform/clock.ts';
import type { DbSession } from '../db/session.ts';
import { emptyCompactionReport, type CompactionReport } from '../images/compaction.ts';
import type { ImageStore } from '../images/image-store.ts';
import { cutoffsFor, type RetentionCutoffs, type RetentionHorizons } from '../platform/config/retention-horizons.ts';
import { retainImages, type ImageRetentionReport } from './images.ts';
import { emptyNonHitReport, removeNonHits, type NonHitReport } from './nonhits.ts';

/**
 * One retention run (docs/retention.md): in ONE transaction, so a crash or an error leaves
 * everything as it was (a pre-segment tree file already unlinked is recorded by the next run):
 *   1. images past their year (their locations forgotten; their bytes go at step 5);
 *   2. hold records that ended 7 years ago, then alerts past their years;
 *   2b. the non-hit tier when a preset or setting turns it on (nonhits.ts): reads with no
 *      alert and no hold record leave the middle of their chains, each leaving a tombstone;
 *   3. detections, as a prefix of each collector's chain (retention_remove_detections:
 *      whole monthly partitions where it can), with a checkpoint per collector;
 *   4. the audit log past its years; and an audit row for the run itself;
 *   5. after COMMIT, segment compaction (images/compaction.ts): the removed images' bytes
 *      leave the disk. A crash before it leaves them for the next run (segments stay dirty).
 * A dry run does steps 1-4 without unlinking files, reports, rolls back, and skips step 5.
 */
export interface RetentionReport {
  dryRun: boolean;
  at: string;
  /** nonHits is null when that tier is off. */
  cutoffs: Record<keyof RetentionCutoffs, string | null>;
  /** Set when another hub process was running retention: nothing was done. */
  skipped?: string;
  images: ImageRetentionReport;
  holdsRemoved: number;
  alertsRemoved: number;
  /** The non-hit tier (reads that matched nothing, under no hold). */
  nonHits: NonHitReport;
  detections: {
    removed: number;
    chains: { collectorId: string; fromSeq: number; uptoSeq: number; removed: number }[];
    partitionsDropped: { name: string; rows: number }[];
  };
  auditRemoved: number;
  /** Step 5 (this process's image folder); absent in a dry run. Runs even when the rest was skipped. */
  compaction?: CompactionReport;
}

export interface RetentionDeps {
  db: DbSession;
  images: ImageStore;
  clock: Clock;
}

class DryRunRollback extends Error {
  constructor(readonly report: RetentionReport) {
    super('dry run: rolled back');
  }
}

export async function runRetention(deps: RetentionDeps, horizons: RetentionHorizons, options: { dryRun?: boolean } = {}): Promise<RetentionReport> {
  const dryRun = options.dryRun === true;
  const now = deps.clock.now();
  const cutoffs = cutoffsFor(now, horizons);
  const report: RetentionReport = {
    dryRun,
    at: now.toISOString(),
    cutoffs: {
      images: cutoffs.images.toISOString(),
      detections: cutoffs.detections.toISOString(),
      nonHits: cutoffs.nonHits?.toISOString() ?? null,
      alerts: cutoffs.alerts.toISOString(),
      audit: cutoffs.audit.toISOString(),
      holds: cutoffs.holds.toISOString(),
    },
    images: { checked: 0, removed: 0, keptInUse: 0, keptHeld: 0, missing: 0, doneUntil: null },
    holdsRemoved: 0,
    alertsRemoved: 0,
    nonHits: emptyNonHitReport(cutoffs.nonHits),
    detections: { removed: 0, chains: [], partitionsDropped: [] },
    auditRemoved: 0,
  };
  try {
    const done = await deps.db.transaction(async (tx) => {
      const [lock] = await tx.sql<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('alpr_retention')) AS ok`);
      if (!lock?.ok) return { ...report, skipped: 'another retention run is in progress' };
      await runSteps(tx, deps, cutoffs, report, now);
      if (dryRun) throw new DryRunRollback(report);
      return report;
    });
    // Also when skipped: hub processes sharing a database each compact their own image
    // folder, and the run that forgot the locations may have been another's.
    done.compaction = await deps.images.compact().catch((error: unknown) => ({
      ...emptyCompactionReport(),
      failed: [{ segment: 0, error: error instanceof Error ? error.message : String(error) }],
    }));
    return done;
  } catch (err) {
    if (err instanceof DryRunRollback) return err.report;
    throw err;
  }
}

async function runSteps(tx: DbSession, deps: RetentionDeps, cutoffs: RetentionCutoffs, report: RetentionReport, now: Date): Promise<void> {
  // Hold records that ended (released or expired) before the holds cutoff go this run. Their
  // detections' images, already past the image window while held, are looked at again.
  const endedHold = `coalesce(LEAST(lh.released_at, lh.hold_until) < $1, false) AND LEAST(lh.released_at, lh.hold_until) <= $2`;
  const released = await tx.sql<{ h: string }>(
    `SELECT DISTINCT v.h::text AS h FROM legal_holds lh
       JOIN detection_keys k ON k.detection_pk = lh.detection_id
       JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
       CROSS JOIN LATERAL (VALUES (d.full_image_hash), (d.crop_image_hash)) AS v(h)
      WHERE ${endedHold} AND d.captured_at < $3 AND v.h IS NOT NULL`,
    [cutoffs.holds, now, cutoffs.images],
  );
  report.images = await retainImages(tx, deps.images, {
    cutoff: cutoffs.images,
    holdsCutoff: cutoffs.holds,
    released: released.map((r) => r.h),
    dryRun: report.dryRun,
  });

  report.holdsRemoved = (await tx.sql(`DELETE FROM legal_holds lh WHERE ${endedHold} RETURNING lh.id`, [cutoffs.holds, now])).length;

  // Alerts of a detection that still has a hold record stay with it.
  const alertIds = `SELECT a.id FROM alerts a WHERE a.created_at < $1
      AND NOT EXISTS (SELECT 1 FROM legal_holds lh WHERE lh.detection_id = a.detection_id)`;
  await tx.sql(`DELETE FROM notification_queue q WHERE q.alert_id IN (${alertIds})`, [cutoffs.alerts]);
  report.alertsRemoved = (await tx.sql(`DELETE FROM alerts WHERE id IN (${alertIds}) RETURNING id`, [cutoffs.alerts])).length;
  // The bot's message records go with the alerts they carried; expired plate cooldowns
  // are nothing but rows (docs/messaging.md).
  await tx.sql(`DELETE FROM telegram_messages m WHERE m.created_at < $1 AND NOT EXISTS (SELECT 1 FROM notification_queue q WHERE q.message_id = m.id)`, [
    cutoffs.alerts,
  ]);
  await tx.sql(`DELETE FROM telegram_plate_cooldowns WHERE until < $1`, [now]);

  if (cutoffs.nonHits) {
    report.nonHits = await removeNonHits(tx, deps.images, {
      cutoff: cutoffs.nonHits,
      imagesCutoff: cutoffs.images,
      holdsCutoff: cutoffs.holds,
      dryRun: report.dryRun,
    });
  }

  const removed = await tx.sql<{ kind: string; name: string; from_seq: string | null; upto_seq: string | null; removed: string }>(
    `SELECT kind, name, from_seq::text AS from_seq, upto_seq::text AS upto_seq, removed::text AS removed
       FROM retention_remove_detections($1)`,
    [cutoffs.detections],
  );
  for (const row of removed) {
    if (row.kind === 'partition') report.detections.partitionsDropped.push({ name: row.name, rows: Number(row.removed) });
    else {
      const count = Number(row.removed);
      report.detections.chains.push({ collectorId: row.name, fromSeq: Number(row.from_seq), uptoSeq: Number(row.upto_seq), removed: count });
      report.detections.removed += count;
    }
  }

  const [audit] = await tx.sql<{ n: string }>(`SELECT retention_remove_audit($1)::text AS n`, [cutoffs.audit]);
  report.auditRemoved = Number(audit?.n ?? 0);

  if (!report.dryRun) {
    await writeAudit(tx, {
      at: now,
      action: 'retention.run',
      targetType: 'retention',
      detail: {
        cutoffs: report.cutoffs,
        images_removed: report.images.removed + report.images.missing,
        holds_removed: report.holdsRemoved,
        alerts_removed: report.alertsRemoved,
        non_hits_removed: report.nonHits.removed,
        non_hit_images_removed: report.nonHits.images.removed + report.nonHits.images.missing,
        detections_removed: report.detections.removed,
        partitions_dropped: report.detections.partitionsDropped.map((p) => p.name),
        audit_removed: report.auditRemoved,
      },
    });
  }
}
