/**
 * How long each kind of record is kept (docs/retention.md), and the cutoffs a run at `now`
 * derives from them. Pure: the run and its tests share it.
 */
export interface RetentionHorizons {
  /** Full scene and crop images, by capture time (1 year). */
  imagesDays: number;
  /** Detection metadata, by capture time (7 years). */
  detectionsDays: number;
  /**
   * Reads that matched nothing and are under no hold record, by capture time: the non-hit
   * tier (presets.ts). null: no tier of their own, they follow `detectionsDays`.
   */
  nonHitsDays: number | null;
  /** Alerts, by creation time (7 years). */
  alertsDays: number;
  /** The audit log (7 years). */
  auditDays: number;
  /** A legal hold record, counted from when the hold ended (released or expired; 7 years). */
  holdsDays: number;
}

/** Seven years of days, leap days included (7 x 365.25, rounded up). */
const SEVEN_YEARS_DAYS = 2557;

export const DEFAULT_HORIZONS: RetentionHorizons = {
  imagesDays: 365,
  detectionsDays: SEVEN_YEARS_DAYS,
  nonHitsDays: null,
  alertsDays: SEVEN_YEARS_DAYS,
  auditDays: SEVEN_YEARS_DAYS,
  holdsDays: SEVEN_YEARS_DAYS,
};

/**
 * The database refuses to remove detections or audit rows younger than a year
 * (migration 0014); 366 days is a year even across a leap day.
 */
export const MIN_RECORD_DAYS = 366;

export interface RetentionCutoffs {
  images: Date;
  detections: Date;
  /** null when the non-hit tier is off. Never older than the detections cutoff. */
  nonHits: Date | null;
  alerts: Date;
  audit: Date;
  holds: Date;
}

const DAY_MS = 86_400_000;

export function cutoffsFor(now: Date, horizons: RetentionHorizons): RetentionCutoffs {
  const before = (days: number): Date => new Date(now.getTime() - days * DAY_MS);
  return {
    images: before(horizons.imagesDays),
    detections: before(horizons.detectionsDays),
    nonHits: horizons.nonHitsDays === null ? null : before(Math.min(horizons.nonHitsDays, horizons.detectionsDays)),
    alerts: before(horizons.alertsDays),
    audit: before(horizons.auditDays),
    holds: before(horizons.holdsDays),
  };
}
