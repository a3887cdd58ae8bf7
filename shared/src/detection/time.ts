/**
 * Camera timestamps to UTC (normalization rule 3 in docs/normalization.md). Pure: uses Intl's
 * time-zone data, no clock. Rules (docs/normalization.md): an explicit offset in the payload (`Z`,
 * `+hh:mm`, `+hhmm`) wins; otherwise the wall-clock time is read in the camera's IANA zone; with no
 * zone configured it is read as UTC. A suffix that is not a valid offset counts as none.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One cached 24-hour formatter per zone (the camera simulators print wall clocks with it too). */
export function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Offset of `timeZone` from UTC at instant `epochMs`, in milliseconds (east positive). */
export function zoneOffsetMs(timeZone: string, epochMs: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const wholeSeconds = Math.floor(epochMs / 1000) * 1000;
  return asUtc - wholeSeconds;
}

export interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/**
 * Wall-clock time in `timeZone` to epoch ms. In the autumn overlap the earlier instant
 * (the first pass through that hour, still on summer time) is chosen; in the spring gap
 * the time is moved forward by the gap, as a clock that was not yet adjusted would read.
 */
export function wallClockToEpoch(wall: WallClock, timeZone: string): number {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
  // Offsets on both sides of any transition near this time: try each, keep those that
  // map back to the same wall clock, prefer the earliest instant.
  const before = zoneOffsetMs(timeZone, naive - 36 * 3600_000);
  const after = zoneOffsetMs(timeZone, naive + 36 * 3600_000);
  const candidates = [...new Set([before, after, zoneOffsetMs(timeZone, naive)])]
    .map((offset) => naive - offset)
    .filter((instant) => instant + zoneOffsetMs(timeZone, instant) === naive)
    .sort((a, b) => a - b);
  if (candidates[0] !== undefined) return candidates[0];
  // In a gap no instant shows this wall clock: read it with the offset in force before.
  return naive - before;
}

const ISO_LIKE = /^(\d{4})-?(\d{2})-?(\d{2})[T ](\d{2}):?(\d{2}):?(\d{2})(?:[.,](\d{1,9}))?(.*)$/;
const COMPACT_DIGITS = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})?$/;
const OFFSET = /^(?:Z|([+-])(\d{2}):?(\d{2}))$/i;

function validWall(w: WallClock): boolean {
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second));
  return w.month >= 1 && w.month <= 12 && w.hour <= 23 && w.minute <= 59 && w.second <= 59 && d.getUTCDate() === w.day && d.getUTCMonth() === w.month - 1;
}

/**
 * Parse a camera timestamp string to a Date in UTC. Accepts ISO 8601 (`2023-08-11T13:49:00+01:00`,
 * with milliseconds, `Z`, or no offset), the compact vendor_a form (`20201130T114200+0100`,
 * `20200424T1616270000`) and `YYYYMMDDhhmmss[mmm]` (vendor_a `absTime`). Undefined when invalid.
 */
export function parseCameraTime(text: string, timeZone?: string): Date | undefined {
  const trimmed = text.trim();
  let wall: WallClock;
  let suffix = '';
  const iso = ISO_LIKE.exec(trimmed);
  const compact = iso ? null : COMPACT_DIGITS.exec(trimmed);
  if (iso) {
    const fraction = (iso[7] ?? '0').padEnd(3, '0').slice(0, 3);
    wall = {
      year: Number(iso[1]),
      month: Number(iso[2]),
      day: Number(iso[3]),
      hour: Number(iso[4]),
      minute: Number(iso[5]),
      second: Number(iso[6]),
      millisecond: Number(fraction),
    };
    suffix = (iso[8] ?? '').trim();
  } else if (compact) {
    wall = {
      year: Number(compact[1]),
      month: Number(compact[2]),
      day: Number(compact[3]),
      hour: Number(compact[4]),
      minute: Number(compact[5]),
      second: Number(compact[6]),
      millisecond: Number(compact[7] ?? '0'),
    };
  } else {
    return undefined;
  }
  if (!validWall(wall)) return undefined;
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
  const offset = OFFSET.exec(suffix);
  if (offset && !offset[1]) return new Date(naive);
  const hours = Number(offset?.[2]);
  const minutes = Number(offset?.[3]);
  // Real offsets run from -12:00 to +14:00; `+2500` is not one, so like any other
  // non-offset suffix it counts as none and the configured zone applies.
  if (offset && hours <= 14 && minutes <= 59) {
    const sign = offset[1] === '-' ? -1 : 1;
    return new Date(naive - sign * (hours * 60 + minutes) * 60_000);
  }
  if (timeZone && isValidTimeZone(timeZone)) return new Date(wallClockToEpoch(wall, timeZone));
  return new Date(naive);
}

/** Epoch milliseconds (vendor_b) to a Date; undefined for non-finite or absurd values. */
export function epochMsToDate(value: unknown): Date | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > 8.64e15) return undefined;
  return new Date(n);
}

/** The wire form: ISO 8601 UTC with milliseconds. */
export const toUtcIso = (date: Date): string => date.toISOString();
