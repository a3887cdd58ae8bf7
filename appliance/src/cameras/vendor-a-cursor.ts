import { compareDigitStrings } from '@alpr/shared/adapters/vendor-a/fields';
import { zoneOffsetMs } from '@alpr/shared/detection/time';

/**
 * vendor_a pull cursor (docs/camera-formats.md "vendor_a pull"): the largest `picName` seen, a
 * digit string of 18-25 digits that starts with the capture time `YYYYMMDDhhmmss` in CAMERA LOCAL
 * time and exceeds 2^53, so it is compared as a string of digits, never as a number.
 *
 * First start (no stored cursor): a picName-shaped value for "now minus the backlog" in
 * the camera's local time, followed by `0000` (Supergiovane starts from a picName-shaped
 * value too ). Without a configured timezone the camera's offset is unknown, so the
 * start moves back a further 14 h (the largest UTC offset): some old reads come in, but
 * none of the recent ones is skipped.
 */

const MAX_UTC_OFFSET_MS = 14 * 3_600_000;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYYMMDDhhmmss` of `epochMs` as a clock in `timezone` (UTC when absent) reads it. */
export function localDigits(epochMs: number, timezone: string | undefined): string {
  const offset = timezone ? zoneOffsetMs(timezone, epochMs) : 0;
  const d = new Date(epochMs + offset);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

export function initialCursor(nowMs: number, backlogMs: number, timezone: string | undefined): string {
  const from = nowMs - backlogMs - (timezone ? 0 : MAX_UTC_OFFSET_MS);
  return `${localDigits(from, timezone)}0000`;
}

/** True when `candidate` is a later picName than `current`. */
export const isLaterCursor = (candidate: string, current: string): boolean => /^\d+$/.test(candidate) && compareDigitStrings(candidate, current) > 0;

/** The XML body of the pull request. The cursor is digits only, so nothing needs escaping. */
export const afterTimeBody = (cursor: string): string => `<?xml version="1.0" encoding="UTF-8"?><AfterTime><picTime>${cursor}</picTime></AfterTime>`;
