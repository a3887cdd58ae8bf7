/**
 * A camera's clock as the appliance judges it (docs/cameras.md "Camera clocks"). Pure.
 * Cameras on an isolated plate network often have no time server: clocks years off, a
 * factory-default zone, summer time switched off. The appliance measures each camera's
 * offset (camera minus true time), corrects capture times past a threshold, keeps pull
 * cursors in the camera's own time, and tells the installer in plain words.
 */
import type { ParsedDetection } from '@alpr/shared/adapters/types';
import { zoneOffsetMs } from '@alpr/shared/detection/time';

/** Below this a camera's clock is left alone: the measurement itself is good to ~1 s. */
export const CLOCK_CORRECT_THRESHOLD_MS = 10_000;
/** Past this the setup and diagnostics pages warn. */
export const CLOCK_WARN_THRESHOLD_MS = 120_000;
/** A pull cursor this far ahead of the camera's clock means the clock went back. */
export const CURSOR_AHEAD_MARGIN_MS = 60_000;
/** How far behind the camera's clock a rewound cursor restarts: covers the reads since the jump. */
export const CURSOR_REWIND_MS = 5 * 60_000;
/** A corrected capture time must land in [now - this, now + FUTURE_MARGIN] to be believed. */
const PLAUSIBLE_AGE_MS = 7 * 86_400_000;
const FUTURE_MARGIN_MS = 60_000;

export interface CameraTime {
  /** `YYYYMMDDhhmmss` as the camera's wall clock shows it (what picNames start with). */
  localDigits: string;
  /** The instant the camera believes it is. */
  epochMs: number;
  /** Minutes east of UTC the camera reports. */
  utcOffsetMinutes: number;
}

/** One reading of a camera's clock: the offset it gave and the round trip it took. */
export interface ClockReading {
  offsetMs: number;
  /** Its error is at most half of this (plus the camera's whole second, centred by the caller). */
  roundTripMs: number;
}

/** Past this, beyond both readings' own uncertainty, a new reading means the camera's clock was set. */
export const CLOCK_CHANGED_MS = 2_000;

/**
 * What a new reading does to the reading in use. `changed`: it disagrees by more than 2 s
 * beyond both readings' uncertainty (someone set the camera's clock). `refined`: it agrees but
 * took a shorter round trip, so it is tighter; a busy appliance or network can make a reading
 * seconds loose, and keeping the first one for good would misdate every read by that much
 * (an NTP-style minimum-delay filter). Otherwise `kept`.
 */
export function nextClockReading(current: ClockReading | null, reading: ClockReading): { use: ClockReading; change: 'first' | 'changed' | 'refined' | 'kept' } {
  if (current === null) return { use: reading, change: 'first' };
  const slack = CLOCK_CHANGED_MS + (current.roundTripMs + reading.roundTripMs) / 2;
  if (Math.abs(reading.offsetMs - current.offsetMs) > slack) return { use: reading, change: 'changed' };
  if (reading.roundTripMs < current.roundTripMs) return { use: reading, change: 'refined' };
  return { use: current, change: 'kept' };
}

/** `<localTime>` of `/ISAPI/System/time`: `2034-11-24T10:00:00+01:00`, `...Z`, `...+0100`. */
export function parseCameraTime(text: string): CameraTime | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, zone] = m as unknown as [string, string, string, string, string, string, string, string];
  const utcOffsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const naive = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(naive)) return undefined;
  return { localDigits: `${y}${mo}${d}${h}${mi}${s}`, epochMs: naive - utcOffsetMinutes * 60_000, utcOffsetMinutes };
}

/** `YYYYMMDDhhmmss` read as if it were UTC: wall-clock arithmetic without a zone. */
export function digitsToWallMs(digits: string): number {
  return Date.UTC(
    Number(digits.slice(0, 4)),
    Number(digits.slice(4, 6)) - 1,
    Number(digits.slice(6, 8)),
    Number(digits.slice(8, 10)),
    Number(digits.slice(10, 12)),
    Number(digits.slice(12, 14)),
  );
}

export function wallMsToDigits(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The camera's wall clock moved by `deltaMs`, as digits. */
export function shiftDigits(digits: string, deltaMs: number): string {
  return wallMsToDigits(digitsToWallMs(digits) + deltaMs);
}

/**
 * The pull cursor to use now, given the camera's wall clock: unchanged, or (the clock went
 * back: summer time ended, a clock corrected backwards) rewound to a little before the
 * camera's present, so the repeated or earlier picNames are asked for. Re-reads cost only
 * a repeat: the buffer recognizes them by id.
 */
export function cursorForClock(cursor: string, cameraDigits: string): { cursor: string; rewound: boolean } {
  if (!/^\d{14}/.test(cursor)) return { cursor, rewound: false };
  const ahead = digitsToWallMs(cursor.slice(0, 14)) - digitsToWallMs(cameraDigits);
  if (!(ahead > CURSOR_AHEAD_MARGIN_MS)) return { cursor, rewound: false };
  return { cursor: `${shiftDigits(cameraDigits, -CURSOR_REWIND_MS)}0000`, rewound: true };
}

/** The offset to apply: none below the threshold. */
export function effectiveOffset(offsetMs: number | null): number {
  return offsetMs !== null && Math.abs(offsetMs) > CLOCK_CORRECT_THRESHOLD_MS ? offsetMs : 0;
}

const plausible = (ms: number, nowMs: number): boolean => ms >= nowMs - PLAUSIBLE_AGE_MS && ms <= nowMs + FUTURE_MARGIN_MS;

/**
 * A capture time in true time. The current offset, unless that lands where no read can be
 * (in the future, or older than the buffer keeps) and the offset before the last clock
 * change lands where one can: a read captured just before the camera's clock was corrected
 * and fetched just after.
 */
export function correctCaptureTime(cameraMs: number, current: number | null, previous: number | null, nowMs: number): { ms: number; corrected: boolean } {
  const now = cameraMs - effectiveOffset(current);
  if (previous !== null && !plausible(now, nowMs)) {
    const before = cameraMs - effectiveOffset(previous);
    if (plausible(before, nowMs)) return { ms: before, corrected: before !== cameraMs };
  }
  return { ms: now, corrected: now !== cameraMs };
}

/** A read restamped with its true capture time; the camera's own time travels as `attributes.camera_time` (and stays in `raw`). */
export function withCapturedAt(item: ParsedDetection, trueMs: number): ParsedDetection {
  const cameraTime = item.detection.timestamp;
  return {
    ...item,
    detection: { ...item.detection, timestamp: new Date(trueMs).toISOString(), attributes: { ...item.detection.attributes, camera_time: cameraTime } },
    raw: { ...item.raw, camera_time: cameraTime },
  };
}

/** "8 years ahead", "26 years behind", "90 seconds ahead". */
export function describeOffset(offsetMs: number): string {
  const abs = Math.abs(offsetMs);
  const way = offsetMs > 0 ? 'ahead' : 'behind';
  const units: Array<[number, string]> = [
    [365.25 * 86_400_000, 'year'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (abs >= size) {
      const n = Math.round(abs / size);
      return `${n} ${name}${n === 1 ? '' : 's'} ${way}`;
    }
  }
  return 'right';
}

export function clockWarning(offsetMs: number | null): string | null {
  if (offsetMs === null || Math.abs(offsetMs) <= CLOCK_WARN_THRESHOLD_MS) return null;
  return `this camera's clock is ${describeOffset(offsetMs)}: its capture times are corrected; set the camera's time (a time server) to stop this`;
}

const formatOffset = (minutes: number): string =>
  `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;

/** The camera's reported UTC offset against the site's zone on that date. */
export function zoneWarning(utcOffsetMinutes: number, timezone: string | undefined, atMs: number): string | null {
  if (!timezone) return null;
  const expected = Math.round(zoneOffsetMs(timezone, atMs) / 60_000);
  if (expected === utcOffsetMinutes) return null;
  const summer =
    Math.abs(expected - utcOffsetMinutes) === 60 ? ': summer time is switched off or wrong on the camera' : ': the camera is set to another time zone';
  return `this camera reports ${formatOffset(utcOffsetMinutes)} but ${timezone} is ${formatOffset(expected)} on this date${summer}`;
}
