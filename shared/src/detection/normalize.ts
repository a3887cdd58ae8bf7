import type { Direction, VehicleType } from './schema.ts';
import { PLATE_TEXT_PATTERN } from './schema.ts';
import { stripPlateColourPrefix } from './plate-colour.ts';

/**
 * Plate text (normalization rule 1 in docs/normalization.md): uppercase, then keep letters and
 * digits only. "Letters" includes Unicode letters so that a Cyrillic, Arabic or CJK plate is not
 * erased (docs/normalization.md); spaces, dashes, dots and every other separator are dropped, and
 * so is a leading Chinese plate-colour character (plate-colour.ts).
 * Returns undefined when nothing readable is left or the camera reported `unknown`.
 */
export function normalizePlateText(raw: string | undefined | null): string | undefined {
  if (typeof raw !== 'string') return undefined;
  // NFKC folds full-width forms (ＡＢＣ１２３) that some Asian firmware sends into ASCII.
  const upper = raw.normalize('NFKC').toLocaleUpperCase('en-US');
  // Same classes as PLATE_TEXT_PATTERN: a lowercase letter with no uppercase form (ĸ) or a
  // modifier letter (ʼ) is dropped like a separator instead of failing the whole read.
  const kept = Array.from(upper)
    .filter((ch) => /[\p{Lu}\p{Lo}\p{Nd}]/u.test(ch))
    .join('');
  if (kept.length === 0 || kept === 'UNKNOWN' || kept === 'NOPLATE') return undefined;
  const plate = stripPlateColourPrefix(kept);
  return PLATE_TEXT_PATTERN.test(plate) ? plate : undefined;
}

/** MAC (normalization rule 2 in docs/normalization.md): lowercase, separators removed. Undefined unless 12 hex digits remain. */
export function normalizeMac(raw: string | undefined | null): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const hex = raw.toLowerCase().replace(/[^0-9a-f]/g, '');
  // Reject inputs that carried non-hex letters: "zz:11:..." must not become a short MAC.
  if (raw.replace(/[\s:.\-]/g, '').length !== hex.length) return undefined;
  return hex.length === 12 ? hex : undefined;
}

const DIRECTION_SYNONYMS: Readonly<Record<string, Direction>> = {
  in: 'entering',
  entry: 'entering',
  entering: 'entering',
  approach: 'entering',
  out: 'exiting',
  exit: 'exiting',
  exiting: 'exiting',
  leaving: 'exiting',
  unknown: 'unknown',
};

/**
 * Direction (normalization rule 4 in docs/normalization.md). vendor_a's `forward`/`reverse` are
 * relative to the camera, not to the site, so they map through a per-camera setting; the default
 * follows ExNVR (forward = approaching = entering). Anything unrecognised is `unknown`.
 */
export function normalizeDirection(raw: string | undefined | null, mapping: { forward: Direction; reverse: Direction } = DEFAULT_DIRECTION_MAPPING): Direction {
  if (typeof raw !== 'string') return 'unknown';
  const key = raw.trim().toLowerCase();
  if (key === 'forward') return mapping.forward;
  if (key === 'reverse' || key === 'backward') return mapping.reverse;
  // Own keys only: `constructor` or `__proto__` must not resolve through Object.prototype.
  return Object.hasOwn(DIRECTION_SYNONYMS, key) ? (DIRECTION_SYNONYMS[key] ?? 'unknown') : 'unknown';
}

export const DEFAULT_DIRECTION_MAPPING = { forward: 'entering', reverse: 'exiting' } as const;

const VEHICLE_TYPE_SYNONYMS: Readonly<Record<string, VehicleType>> = {
  car: 'car',
  sedan: 'car',
  suv: 'car',
  automobile: 'car',
  // vendor_a: `vehicle` is its generic passenger-car class, `SUVMPV` its SUV/MPV class.
  vehicle: 'car',
  suvmpv: 'car',
  truck: 'truck',
  lorry: 'truck',
  pickup: 'truck',
  pickuptruck: 'truck',
  motorcycle: 'motorcycle',
  motorbike: 'motorcycle',
  bike: 'motorcycle',
  twowheelvehicle: 'motorcycle',
  bus: 'bus',
  coach: 'bus',
  largebus: 'bus',
  mediumbus: 'bus',
  van: 'van',
  minivan: 'van',
};

/** Vehicle type (normalization rule 5 in docs/normalization.md, plus the vendor_a classes in docs/normalization.md). */
export function normalizeVehicleType(raw: string | undefined | null): VehicleType | undefined {
  if (typeof raw !== 'string') return undefined;
  const key = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_\-]/g, '');
  return Object.hasOwn(VEHICLE_TYPE_SYNONYMS, key) ? VEHICLE_TYPE_SYNONYMS[key] : undefined;
}

/**
 * Confidence to 0..1. Vendors send 0..100 (vendor_a `confidenceLevel`, vendor_b
 * `confidence`); a value already within 0..1 is taken as a fraction only when the caller
 * says the scale is unit.
 */
export function normalizeConfidence(raw: unknown, scale: 'percent' | 'unit'): number | undefined {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  const value = scale === 'percent' ? n / 100 : n;
  if (value < 0 || value > 1) return undefined;
  return Math.round(value * 10000) / 10000;
}

/** Free-text vehicle attributes (colour, brand, model): trimmed, lowercase, `unknown` dropped. */
export function normalizeAttribute(raw: unknown): string | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const text = String(raw).trim().slice(0, 50);
  if (text === '' || text.toLowerCase() === 'unknown') return undefined;
  return text;
}
