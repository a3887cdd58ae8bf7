import type { Lookup } from './flags.ts';

/** A user's lookups in one week (Monday, UTC) for one purpose. */
export interface PurposeWeek {
  userId: string;
  week: string;
  purpose: string;
  count: number;
}

/** Lookups made before purposes existed, or through a path without one, are counted as this. */
export const NO_PURPOSE = 'none';

/** The Monday (UTC) of the week `at` falls in, as YYYY-MM-DD. */
export function weekOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

/** Each user's lookups per week and purpose, oldest week first: the review page's table. */
export function lookupsByPurpose(lookups: readonly Lookup[]): PurposeWeek[] {
  const counts = new Map<string, PurposeWeek>();
  for (const l of lookups) {
    const week = weekOf(l.at);
    const purpose = l.purpose ?? NO_PURPOSE;
    const key = `${l.userId} ${week} ${purpose}`;
    const row = counts.get(key);
    if (row) row.count++;
    else counts.set(key, { userId: l.userId, week, purpose, count: 1 });
  }
  return [...counts.values()].sort((a, b) => a.userId.localeCompare(b.userId) || a.week.localeCompare(b.week) || a.purpose.localeCompare(b.purpose));
}
