/** Field rules shared by the vendor_a push and pull parsers (docs/camera-formats.md "vendor_a"). */
import type { ParseOutcome } from '../types.ts';

export const VENDOR = 'vendor_a';

/**
 * `country`/region: kept only when textual. Push sends a numeric country index (no public
 * table), pull a three-letter code where `NON` means "none".
 */
export function textualRegion(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || !/\p{L}/u.test(value) || /^(non|none|unknown)$/i.test(value)) return undefined;
  return value;
}

/** Compare two digit strings as non-negative integers of any length (picName > 2^53). */
export function compareDigitStrings(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A vendor_a `picName`: digits only (it goes into an image URL path, so nothing else). */
export const PIC_NAME_PATTERN = /^\d{1,64}$/;

/** Raw values worth keeping for diagnostics, with absent ones left out. */
export function rawFields(fields: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}

/** A whole-payload failure; the reason is kept to one short line for logs. */
export const failed = (reason: string): ParseOutcome => ({
  detections: [],
  errors: [],
  ignored: 0,
  failure: reason.replace(/\s+/g, ' ').trim().slice(0, 300),
});
