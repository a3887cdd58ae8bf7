/**
 * A camera's usual reads for an hour of the week, and the quiet and slow verdicts built on it
 * (docs/health.md "Quiet and slow cameras"). Pure: the evaluator loads the hours, this decides.
 *
 * Why a median of the same hour of the week: plate traffic follows the week (a gate at 08:00 on
 * a Monday is not a gate at 03:00 on a Sunday), and one odd week (a holiday, a day the
 * collector was down) moves a median of 4 by at most one rank, where a mean would follow it.
 */
import { QUIET, SLOW, USUAL, WEEK_MS } from './kinds.ts';

const HOUR_MS = 3_600_000;

export interface ReadHistory {
  firstReadAt: Date;
  lastReadAt: Date;
  /** Reads per hour, by the hour's start (ms since the epoch, UTC). Missing hours had none. */
  readsByHour: ReadonlyMap<number, number>;
}

export const hourStart = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid] ?? 0;
  return ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The hours (ms) whose reads usualReads needs for `hour`: the same hour 1..4 weeks back. */
export function pastWeeksOf(hour: number): number[] {
  return Array.from({ length: USUAL.weeks }, (_, i) => hour - (i + 1) * WEEK_MS);
}

/**
 * The usual reads in `hour`: the median over the past weeks the camera was already reading
 * (an hour wholly after the hour of its first read; before that the camera did not exist for
 * us, which is not the same as 0 reads). Undefined with fewer than 2 such weeks.
 */
export function usualReads(history: ReadHistory, hour: number): number | undefined {
  const since = hourStart(history.firstReadAt.getTime());
  const weeks = pastWeeksOf(hour).filter((h) => h > since);
  if (weeks.length < USUAL.minWeeks) return undefined;
  return median(weeks.map((h) => history.readsByHour.get(h) ?? 0));
}

export type Verdict<T> = { on: true; facts: T } | { on: false } | undefined;

export interface QuietFacts {
  silentMs: number;
  expectedReads: number;
  usualThisHour: number;
}

/**
 * Quiet: no read for 60 minutes or more while the usual rate says 10 or more would have come
 * in that time (the silence counted back at most 6 hours). Clears (off) at the first read.
 * Undefined (no opinion, the state stays as it is) without a usual rate or when the usual
 * says too few reads to tell silence from chance (a gate at night).
 */
export function quietVerdict(history: ReadHistory, now: Date): Verdict<QuietFacts> {
  const nowMs = now.getTime();
  const silentMs = nowMs - history.lastReadAt.getTime();
  if (silentMs < QUIET.minSilentMs) return { on: false };
  const from = Math.max(history.lastReadAt.getTime(), nowMs - QUIET.maxSpanMs);
  let expected = 0;
  for (let hour = hourStart(from); hour < nowMs; hour += HOUR_MS) {
    const usual = usualReads(history, hour);
    if (usual === undefined) return undefined;
    const overlap = Math.min(nowMs, hour + HOUR_MS) - Math.max(from, hour);
    expected += (usual * overlap) / HOUR_MS;
  }
  const usualThisHour = usualReads(history, hourStart(nowMs)) ?? 0;
  if (expected >= QUIET.minExpectedReads) return { on: true, facts: { silentMs, expectedReads: expected, usualThisHour } };
  return undefined;
}

export interface SlowFacts {
  observed: number;
  expected: number;
}

/**
 * Slow: over the last 3 hours (the two before this one and this one so far, its usual pro
 * rata), fewer than 25 % of the usual reads, with at least 20 expected. Closes at 50 % or
 * more. Zero reads is quiet's business, not slow's: no opinion then, so one dead camera is one
 * alert.
 */
export function slowVerdict(history: ReadHistory, now: Date): Verdict<SlowFacts> {
  const nowMs = now.getTime();
  const current = hourStart(nowMs);
  let expected = 0;
  let observed = 0;
  for (let i = SLOW.windowHours - 1; i >= 0; i--) {
    const hour = current - i * HOUR_MS;
    const usual = usualReads(history, hour);
    if (usual === undefined) return undefined;
    expected += i === 0 ? (usual * (nowMs - current)) / HOUR_MS : usual;
    observed += history.readsByHour.get(hour) ?? 0;
  }
  if (expected < SLOW.minExpectedReads) return undefined;
  const ratio = observed / expected;
  if (ratio >= SLOW.closeAtOrAbove) return { on: false };
  if (ratio < SLOW.openBelow && observed > 0) return { on: true, facts: { observed, expected } };
  return undefined;
}
