import { DEFAULT_HORIZONS, type RetentionHorizons } from './retention-horizons.ts';

/**
 * Retention presets (docs/retention.md "Tiers and presets"). A preset sets the non-hit
 * tier only: hits (alerts and their detections), held detections, hold records, images of
 * kept reads and the audit log keep their own periods (HUB_RETENTION_*_DAYS), so choosing a
 * short memory for the innocent never shortens the evidence. Pure: config and tests share it.
 */
export const RETENTION_PRESETS = ['default', '90d', '21d', '24h'] as const;
export type RetentionPreset = (typeof RETENTION_PRESETS)[number];

export interface PresetDescription {
  /** Days a read that matched nothing is kept; null: as long as any detection (7 years). */
  nonHitsDays: number | null;
  summary: string;
}

export const PRESETS: Readonly<Record<RetentionPreset, PresetDescription>> = {
  default: { nonHitsDays: null, summary: 'every read 7 years, images 1 year (no separate tier for non-hits)' },
  // 90 days: a season of reads, for places that want some look-back without years of it.
  '90d': { nonHitsDays: 90, summary: 'reads that matched nothing 90 days' },
  // 21 days: the cap Maine and Virginia set by law for reads that matched nothing.
  '21d': { nonHitsDays: 21, summary: 'reads that matched nothing 21 days' },
  // 24 hours: the shortest the hub offers; run retention hourly for it to hold (docs/retention.md).
  '24h': { nonHitsDays: 1, summary: 'reads that matched nothing 24 hours' },
};

/** The smallest non-hit period a setting may ask for (the database's floor is an hour). */
export const MIN_NON_HITS_DAYS = 1;

/**
 * The horizons a preset gives on top of the other periods; `nonHitsDays` (an explicit
 * HUB_RETENTION_NON_HITS_DAYS) wins over the preset. A non-hit period at or past the
 * detections period is no tier at all (the detections period removes them first).
 */
export function withPreset(base: Omit<RetentionHorizons, 'nonHitsDays'>, preset: RetentionPreset, nonHitsDays?: number): RetentionHorizons {
  const days = nonHitsDays ?? PRESETS[preset].nonHitsDays;
  return { ...base, nonHitsDays: days === null || days >= base.detectionsDays ? null : days };
}

export const defaultHorizonsFor = (preset: RetentionPreset): RetentionHorizons => withPreset(DEFAULT_HORIZONS, preset);

/** One line per tier, for the CLI, the logs and the public account. */
export function describeTiers(h: RetentionHorizons): { tier: string; kept: string }[] {
  const days = (n: number): string => {
    const years = Math.round(n / 365.25);
    if (n === 1) return '24 hours';
    // 365 and 2557 (7 x 365.25, rounded up) read as whole years: within a day of one.
    if (years >= 1 && Math.abs(n - years * 365.25) <= 1) return `${years} year${years === 1 ? '' : 's'}`;
    return `${n} days`;
  };
  return [
    { tier: 'reads that matched nothing (no alert, no hold)', kept: days(h.nonHitsDays ?? h.detectionsDays) },
    { tier: 'hits: alerts', kept: days(h.alertsDays) },
    { tier: 'hits: their detections, and all reads at most', kept: days(h.detectionsDays) },
    { tier: 'held detections', kept: `while a hold record exists; hold records ${days(h.holdsDays)} after the hold ends` },
    { tier: 'images of kept reads', kept: days(h.imagesDays) },
    { tier: 'audit log', kept: days(h.auditDays) },
  ];
}
