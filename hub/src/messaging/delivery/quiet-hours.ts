/**
 * Quiet hours (spec "Notification preference": per channel, time-zone aware), pure. Times
 * are wall-clock `HH:MM[:SS]` in the preference's IANA zone; a window whose start is after
 * its end wraps midnight (22:00-07:00); equal start and end is no window at all (a user who
 * wants silence all day switches the channel off).
 */
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
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(now);
  } catch {
    return Math.floor((now.getTime() % 86_400_000) / 1000);
  }
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 3600 + get('minute') * 60 + get('second');
}

export function inQuietHours(now: Date, quiet: QuietHours): boolean {
  if (!quiet.start || !quiet.end) return false;
  const start = secondsOf(quiet.start);
  const end = secondsOf(quiet.end);
  if (start === end) return false;
  const t = localSecondsOfDay(now, quiet.timeZone);
  return start < end ? t >= start && t < end : t >= start || t < end;
}

/** True for a zone this runtime knows (validation of user input). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
