/**
 * OCR-aware plate comparison, shared by hub search and watchlist matching so that SQL
 * pre-filtering and in-code ranking agree (docs/search.md). Pure; see docs/normalization.md.
 */
import { MAX_PLATE_LENGTH } from './limits.ts';

/** Longest `plate_normalized` value the hub stores (limits.ts). */
export const OCR_NORMALIZED_MAX_LENGTH = MAX_PLATE_LENGTH;

/** `plate_normalized`: O, Q, D become 0; I, L become 1; S becomes 5. */
const OCR_SUBSTITUTIONS: Readonly<Record<string, string>> = { O: '0', Q: '0', D: '0', I: '1', L: '1', S: '5' };

/**
 * docs/search.md. The first member of each group is its canonical
 * representative; it is a digit, so a key never depends on which letter OCR chose.
 */
export const CONFUSION_GROUPS = [
  ['0', 'O', 'Q', 'D'],
  ['1', 'I', 'L', '7'],
  ['5', 'S'],
  ['8', 'B'],
  ['2', 'Z'],
  ['6', 'G'],
] as const;

const REPRESENTATIVE: ReadonlyMap<string, string> = new Map(CONFUSION_GROUPS.flatMap((group) => group.map((member): [string, string] => [member, group[0]])));

/** Uppercase letters and digits only (the same classes as normalized plate text). */
function cleanPlate(plate: string): string[] {
  return Array.from(plate.normalize('NFKC').toLocaleUpperCase('en-US')).filter((ch) => /[\p{Lu}\p{Lo}\p{Nd}]/u.test(ch));
}

/**
 * The stored `plate_normalized` form. Idempotent, so it may be given raw text, normalized plate
 * text or its own output. Truncated to 20 characters (code points, as PostgreSQL counts
 * `varchar(20)`), which only bites reads that are mostly garbage anyway.
 */
export function ocrNormalize(plate: string): string {
  return cleanPlate(plate)
    .map((ch) => OCR_SUBSTITUTIONS[ch] ?? ch)
    .slice(0, OCR_NORMALIZED_MAX_LENGTH)
    .join('');
}

/**
 * Every character replaced by its confusion group's representative, after `ocrNormalize`.
 * Two plates that differ only by confusable characters (`8O1ZS` / `B0I25`) get equal keys;
 * `confusionKey(ocrNormalize(p)) === confusionKey(p)`, so the key can be computed from the
 * stored `plate_normalized` column.
 */
export function confusionKey(plate: string): string {
  return Array.from(ocrNormalize(plate))
    .map((ch) => REPRESENTATIVE.get(ch) ?? ch)
    .join('');
}

/** True when the plates read the same up to OCR confusions (identical plates included). */
export function areConfusable(a: string, b: string): boolean {
  const key = confusionKey(a);
  return key.length > 0 && key === confusionKey(b);
}

/**
 * pg_trgm's word split: runs of letters and digits (iswalnum under a UTF-8 database
 * locale); everything else separates words.
 */
const WORD = /[\p{L}\p{N}]+/gu;

/** pg_trgm trigram set: each lowercased word padded with two spaces before and one after. */
export function trigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const padded = Array.from(`  ${word} `);
    for (let i = 0; i + 3 <= padded.length; i += 1) set.add(padded.slice(i, i + 3).join(''));
  }
  return set;
}

/**
 * pg_trgm `similarity(a, b)`: shared trigrams over distinct trigrams of both, 0 when either
 * side has none. Rounded to float4 because PostgreSQL returns `real`, so a threshold or a
 * tie compares the same value in code as in SQL. Callers pass `ocrNormalize` output, the
 * value the hub's `plate_normalized` column holds.
 */
export function trigramSimilarity(a: string, b: string): number {
  const left = trigrams(a);
  const right = trigrams(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared += 1;
  return Math.fround(shared / (left.size + right.size - shared));
}
