/**
 * A watchlist's alert scope (docs/watchlists.md "Scopes"): where (sites, collectors, cameras),
 * which way (entering, exiting, either) and when (days and hours in a named time zone) a list
 * alerts. Pure: the cache compiles each stored scope once, the matcher asks `readInScope` for
 * each read that hits a scoped list, and the words shown on an alert come from `describeRule`.
 */
import type { StoredScope, WatchlistMode } from '../db/schema/watchlists.ts';

export const SCOPE_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type ScopeDay = (typeof SCOPE_DAYS)[number];
const DAY_WORDS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** What the matcher needs of a read to decide a scope: where, which way, when. */
export interface ReadContext {
  collectorId: string;
  cameraId: string;
  siteId: string | null;
  direction: 'entering' | 'exiting' | 'unknown';
  capturedAt: Date;
}

export interface CompiledScope {
  /** null: anywhere. A read is in place when its site, its collector or its camera is named. */
  places: { sites: ReadonlySet<string>; collectors: ReadonlySet<string>; cameras: ReadonlySet<string> } | null;
  /** null: either way (an `unknown` direction too). */
  direction: 'entering' | 'exiting' | null;
  /** null: always. `days[0]` is Monday. from == to means the whole day. */
  time: { days: readonly boolean[]; fromMin: number; toMin: number; timeZone: string } | null;
}

/** A list's rule as the matcher holds it: only lists that narrow anything have one. */
export interface ListRule {
  watchlistId: string;
  mode: WatchlistMode;
  scope: CompiledScope | null;
  /** Ignore lists attached to this list: a plate on any of them never alerts here. */
  ignoreListIds: readonly string[];
  /** The rule in words, shown on the alert ("allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris"). */
  words: string;
}

const cameraKey = (collectorId: string, cameraId: string): string => `${collectorId}\u0000${cameraId}`;

export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

/** The stored scope made cheap to test; null when it narrows nothing (no cost in the matcher). */
export function compileScope(stored: StoredScope | null | undefined): CompiledScope | null {
  if (!stored) return null;
  const sites = new Set(stored.sites ?? []);
  const collectors = new Set(stored.collectors ?? []);
  const cameras = new Set((stored.cameras ?? []).map((c) => cameraKey(c.collector_id, c.camera_id)));
  const places = sites.size + collectors.size + cameras.size > 0 ? { sites, collectors, cameras } : null;
  const direction = stored.direction === 'entering' || stored.direction === 'exiting' ? stored.direction : null;
  const narrowsDays = stored.days !== undefined && stored.days.length < 7;
  let time: CompiledScope['time'] = null;
  if (narrowsDays || stored.hours) {
    const days = SCOPE_DAYS.map((d) => (stored.days ? stored.days.includes(d) : true));
    const fromMin = stored.hours ? minutesOf(stored.hours.from) : 0;
    const toMin = stored.hours ? minutesOf(stored.hours.to) : 0;
    time = { days, fromMin, toMin, timeZone: stored.time_zone ?? 'UTC' };
  }
  if (!places && !direction && !time) return null;
  return { places, direction, time };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_INDEX: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

/**
 * The wall-clock weekday (0 = Monday) and minute of the day at `at` in `timeZone`, through
 * Intl, so daylight-saving changes are the zone's own: 04:30 UTC on 29 March 2026 is 06:30 in
 * Paris (summer time began at 01:00 UTC), not 05:30. One formatter per zone, kept.
 */
export function localWallTime(at: Date, timeZone: string): { day: number; minute: number } {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, fmt);
  }
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of fmt.formatToParts(at)) {
    if (part.type === 'weekday') day = WEEKDAY_INDEX[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

/**
 * Whether a wall-clock moment falls in the window. A window that crosses midnight
 * (22:00-06:00) belongs to the day it starts: "Mon-Fri 22:00-06:00" runs from Monday 22:00 to
 * Saturday 06:00, so Saturday 05:00 is in and Monday 05:00 is not.
 */
export function inWindow(time: NonNullable<CompiledScope['time']>, day: number, minute: number): boolean {
  const { days, fromMin, toMin } = time;
  if (fromMin === toMin) return days[day] === true;
  if (fromMin < toMin) return days[day] === true && minute >= fromMin && minute < toMin;
  const previous = (day + 6) % 7;
  return (days[day] === true && minute >= fromMin) || (days[previous] === true && minute < toMin);
}

export function readInScope(scope: CompiledScope, read: ReadContext | undefined): boolean {
  // A read we know nothing about is outside every scope: a scoped list never alerts blind.
  if (!read) return false;
  if (scope.direction && read.direction !== scope.direction) return false;
  const p = scope.places;
  if (
    p &&
    !(p.collectors.has(read.collectorId) || (read.siteId !== null && p.sites.has(read.siteId)) || p.cameras.has(cameraKey(read.collectorId, read.cameraId)))
  ) {
    return false;
  }
  if (scope.time) {
    const { day, minute } = localWallTime(read.capturedAt, scope.time.timeZone);
    if (!inWindow(scope.time, day, minute)) return false;
  }
  return true;
}

/** "Mon-Fri", "Sat, Sun", "Mon, Wed-Fri", "every day". */
export function describeDays(days: readonly ScopeDay[] | undefined): string {
  if (!days || days.length === 7) return 'every day';
  const on = SCOPE_DAYS.map((d) => days.includes(d));
  const parts: string[] = [];
  for (let i = 0; i < 7; i++) {
    if (!on[i]) continue;
    let j = i;
    while (j + 1 < 7 && on[j + 1]) j++;
    parts.push(j - i >= 2 ? `${DAY_WORDS[i]}-${DAY_WORDS[j]}` : j === i ? (DAY_WORDS[i] ?? '') : `${DAY_WORDS[i]}, ${DAY_WORDS[j]}`);
    i = j;
  }
  return parts.join(', ');
}

/** Names for the words: a site or collector the scope names by id, shown by its name. */
export interface ScopeNames {
  sites: ReadonlyMap<string, string>;
  collectors: ReadonlyMap<string, string>;
}

/**
 * The scope in words, as the alert and the page show it: mode, places, direction, days and
 * hours with the zone. "allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris";
 * "listed, anywhere, either direction, always" for a list with no scope.
 */
export function describeScope(mode: WatchlistMode, stored: StoredScope | null | undefined, names: ScopeNames, ignoreLists: readonly string[] = []): string {
  const parts: string[] = [mode === 'allow_list' ? 'allow-list' : 'listed'];
  const places = [
    ...(stored?.sites ?? []).map((id) => names.sites.get(id) ?? `site ${id.slice(0, 8)}`),
    ...(stored?.collectors ?? []).map((id) => names.collectors.get(id) ?? `collector ${id.slice(0, 8)}`),
    ...(stored?.cameras ?? []).map((c) => `camera ${c.camera_id} on ${names.collectors.get(c.collector_id) ?? `collector ${c.collector_id.slice(0, 8)}`}`),
  ];
  parts.push(places.length > 0 ? places.join(' or ') : 'anywhere');
  parts.push(stored?.direction === 'entering' || stored?.direction === 'exiting' ? stored.direction : 'either direction');
  const narrowsDays = stored?.days !== undefined && stored.days.length < 7;
  if (stored && (narrowsDays || stored.hours)) {
    const hours = stored.hours && stored.hours.from !== stored.hours.to ? ` ${stored.hours.from}-${stored.hours.to}` : '';
    parts.push(`${describeDays(stored.days)}${hours} ${stored.time_zone ?? 'UTC'}`);
  } else {
    parts.push('always');
  }
  if (ignoreLists.length > 0) parts.push(`ignoring ${ignoreLists.join(', ')}`);
  return parts.join(', ');
}
