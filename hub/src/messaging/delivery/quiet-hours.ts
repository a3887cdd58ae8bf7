/**
 * Quiet hours (docs/messaging.md: per channel, time-zone aware), pure. Times
 * are wall-clock `HH:MM[:SS]` in the preference's IANA zone; a window whose start is after
 * its end wraps midnight (22:00-07:00); equal start and end is no window at all (a user who
 * wants silence all day switches the channel off).
 */
import { zoneOffsetMs } from '@alpr/shared/detection/time';

export interface QuietHours {
  start: string | null;
  end: string | null;
  timeZone: string;
}

const secondsOf = (hhmmss: string): number => {
  const [h = '0', m = '0', s = '0'] = hhmmss.split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
};

/** Seconds since local midnight at `now` in `timeZone` (UTC when the zone is unknown). */
export function localSecondsOfDay(now: Date, timeZone: string): number {
  let offsetMs = 0;
  try {
    offsetMs = zoneOffsetMs(timeZone, now.getTime());
  } catch {
    // An unknown zone (validated on input, so only a zone dropped from Intl's data) reads as UTC.
  }
  const local = (now.getTime() + offsetMs) % 86_400_000;
  return Math.floor((local < 0 ? local + 86_400_000 : local) / 1000);
}

export function inQuietHours(now: Date, quiet: QuietHours): boolean {
  if (!quiet.start || !quiet.end) return false;
  const start = secondsOf(quiet.start);
  const end = secondsOf(quiet.end);
  if (start === end) return false;
  const t = localSecondsOfDay(now, quiet.timeZone);
  return start < end ? t >= start && t < end : t >= start || t < end;
}
