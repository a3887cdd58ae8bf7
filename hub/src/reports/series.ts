/**
 * Turning sparse counts into the full series a chart draws (missing hours and days are zero),
 * and grouping per collector. Pure.
 */
export interface Point {
  at: number;
  value: number;
}

/** `steps` consecutive slots of `stepMs` ending with the slot that holds `now`; absent slots are 0. */
export function fillSeries(points: ReadonlyArray<Point>, now: Date, stepMs: number, steps: number): Point[] {
  const last = Math.floor(now.getTime() / stepMs) * stepMs;
  const byAt = new Map<number, number>();
  for (const p of points) byAt.set(p.at, (byAt.get(p.at) ?? 0) + p.value);
  return Array.from({ length: steps }, (_, i) => {
    const at = last - (steps - 1 - i) * stepMs;
    return { at, value: byAt.get(at) ?? 0 };
  });
}

/** Rows grouped by a key, in descending order of `weight` (e.g. the collectors with most detections first). */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string, weight: (rows: T[]) => number): Array<{ key: string; rows: T[] }> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return [...groups].map(([k, v]) => ({ key: k, rows: v })).sort((a, b) => weight(b.rows) - weight(a.rows) || a.key.localeCompare(b.key));
}
