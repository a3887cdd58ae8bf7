/**
 * Camera wall-clock formats (docs/camera-formats.md "vendor_a time formats"). vendor_a cameras
 * print local time in their configured zone; the offset comes from Intl so DST is right for any
 * IANA zone.
 */
import { formatterFor } from '../../shared/src/detection/time.ts';

export interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  millis: string;
  /** Minutes east of UTC. */
  offsetMinutes: number;
}

export function wallClock(timeMs: number, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(timeMs))) parts[p.type] = p.value;
  const get = (k: string): string => parts[k] ?? '00';
  const wholeSecond = Math.floor(timeMs / 1000) * 1000;
  const asUtc = Date.UTC(+get('year'), +get('month') - 1, +get('day'), +get('hour'), +get('minute'), +get('second'));
  return {
    year: get('year').padStart(4, '0'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
    millis: String(timeMs - wholeSecond).padStart(3, '0'),
    offsetMinutes: Math.round((asUtc - wholeSecond) / 60_000),
  };
}

function offset(minutes: number, colon: boolean): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${sign}${hh}${colon ? ':' : ''}${mm}`;
}

/** Push `dateTime`: `2030-01-02T03:04:05.123+01:00` (the millisecond variant of ). */
export function isoLocal(timeMs: number, timeZone: string): string {
  const w = wallClock(timeMs, timeZone);
  return `${w.year}-${w.month}-${w.day}T${w.hour}:${w.minute}:${w.second}.${w.millis}${offset(w.offsetMinutes, true)}`;
}

/** Pull `captureTime`: `20300102T030405+0100`. */
export function compactLocal(timeMs: number, timeZone: string): string {
  const w = wallClock(timeMs, timeZone);
  return `${w.year}${w.month}${w.day}T${w.hour}${w.minute}${w.second}${offset(w.offsetMinutes, false)}`;
}

/** `YYYYMMDDhhmmss` in local time: the picName prefix and one accepted pull cursor. */
export function localDigits(timeMs: number, timeZone: string): string {
  const w = wallClock(timeMs, timeZone);
  return `${w.year}${w.month}${w.day}${w.hour}${w.minute}${w.second}`;
}

/** `pictureInfo/absTime`: `YYYYMMDDhhmmssmmm`, local time. */
export const absTime = (timeMs: number, timeZone: string): string => `${localDigits(timeMs, timeZone)}${wallClock(timeMs, timeZone).millis}`;

/** ISO UTC at whole seconds, what a pull read can say about its time. */
export const utcSeconds = (timeMs: number): string => new Date(Math.floor(timeMs / 1000) * 1000).toISOString();
