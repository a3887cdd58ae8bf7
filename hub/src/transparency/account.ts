/**
 * The public account (docs/transparency.md): assembled from counts the loader reads, with no
 * plate, user, camera or case in it. Pure: the route, the page and the tests share it.
 */
import type { RetentionHorizons } from '../platform/config/retention-horizons.ts';
import { describeTiers, type RetentionPreset } from '../platform/config/retention-presets.ts';
import { PURPOSE_CODE } from '../audit/purposes/schema.ts';

/** Twelve calendar months (UTC), this one included: a year of activity, as annual reports ask. */
export const MONTHS_SHOWN = 12;

/** Lookups the account counts as searches, by purpose; exports are also counted on their own. */
export const SEARCH_ACTIONS = ['search.detections', 'search.detection_view', 'search.investigation', 'export.detections'] as const;
export const EXPORT_ACTION = 'export.detections';
export const HOLD_ACTION = 'legal_hold.place';

/** Lookups audited before purposes existed (or a code no longer known) count under this key. */
export const NO_PURPOSE = 'none_stated';

export interface PurposeInfo {
  code: string;
  label: string;
  case_number_required: boolean;
  active: boolean;
}

/** What the loader reads, each keyed by month (`YYYY-MM`, UTC). */
export interface AccountInput {
  now: Date;
  horizons: RetentionHorizons;
  preset: RetentionPreset;
  purposes: readonly PurposeInfo[];
  /** Reads counted at ingest per camera and hour (kept 5 weeks), then folded per month (kept for years), summed by month. */
  foldedReads: ReadonlyMap<string, number>;
  /** Detections still stored, by capture month. */
  storedReads: ReadonlyMap<string, number>;
  cameras: ReadonlyMap<string, number>;
  alerts: ReadonlyMap<string, { hits: number; confirmed: number; misread: number }>;
  /** Audit rows by month, action and stated purpose (null: none). */
  audit: ReadonlyArray<{ month: string; action: string; purpose: string | null; count: number }>;
}

export interface MonthFigures {
  month: string;
  cameras: number;
  /** At least this many reads: the larger of the ingest counts and the reads still stored. */
  reads: number;
  hits: number;
  confirmed_hits: number;
  misread_hits: number;
  searches: number;
  searches_by_purpose: Record<string, number>;
  legal_holds_placed: number;
  evidence_exports: number;
}

export interface PublicAccount {
  generated_at: string;
  retention: { preset: RetentionPreset; tiers: { tier: string; kept: string }[] };
  purposes: { code: string; label: string; case_number_required: boolean }[];
  /** Labels of every purpose code the months name (retired ones too), and NO_PURPOSE. */
  purpose_labels: Record<string, string>;
  months: MonthFigures[];
}

/** `YYYY-MM` of an instant, in UTC. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The first instant of the month `back` months before `now`'s month (UTC). */
export function monthStart(now: Date, back: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
}

/** [from, to): the months shown, oldest first, and the range the loader reads. */
export function accountRange(now: Date): { from: Date; to: Date; months: string[] } {
  const months: string[] = [];
  for (let back = MONTHS_SHOWN - 1; back >= 0; back--) months.push(monthOf(monthStart(now, back)));
  return { from: monthStart(now, MONTHS_SHOWN - 1), to: monthStart(now, -1), months };
}

export function assembleAccount(input: AccountInput): PublicAccount {
  const known = new Map(input.purposes.map((p) => [p.code, p]));
  const purposeKey = (code: string | null): string => (code !== null && PURPOSE_CODE.test(code) && known.has(code) ? code : NO_PURPOSE);
  const labels: Record<string, string> = {};
  const months = accountRange(input.now).months.map((month): MonthFigures => {
    const alerts = input.alerts.get(month) ?? { hits: 0, confirmed: 0, misread: 0 };
    const byPurpose: Record<string, number> = {};
    let searches = 0;
    let holds = 0;
    let exports = 0;
    for (const row of input.audit) {
      if (row.month !== month) continue;
      if (row.action === HOLD_ACTION) holds += row.count;
      if (row.action === EXPORT_ACTION) exports += row.count;
      if (!(SEARCH_ACTIONS as readonly string[]).includes(row.action)) continue;
      const key = purposeKey(row.purpose);
      byPurpose[key] = (byPurpose[key] ?? 0) + row.count;
      labels[key] = known.get(key)?.label ?? 'no purpose stated';
      searches += row.count;
    }
    return {
      month,
      cameras: input.cameras.get(month) ?? 0,
      reads: Math.max(input.foldedReads.get(month) ?? 0, input.storedReads.get(month) ?? 0),
      hits: alerts.hits,
      confirmed_hits: alerts.confirmed,
      misread_hits: alerts.misread,
      searches,
      searches_by_purpose: Object.fromEntries(Object.entries(byPurpose).sort(([a], [b]) => a.localeCompare(b))),
      legal_holds_placed: holds,
      evidence_exports: exports,
    };
  });
  return {
    generated_at: input.now.toISOString(),
    retention: { preset: input.preset, tiers: describeTiers(input.horizons) },
    purposes: input.purposes.filter((p) => p.active).map((p) => ({ code: p.code, label: p.label, case_number_required: p.case_number_required })),
    purpose_labels: labels,
    months,
  };
}
