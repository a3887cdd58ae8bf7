/**
 * How much a reading looks like a plate of a region. A multiplier on a reading's character
 * confidence, 0 when the region's plates cannot have that shape. Kept to what each region's
 * issuing rules say, not to any photo set:
 * - `us`: 2 to 8 letters and digits (vanity plates make short and all-letter plates legal, but
 *   rare next to serial plates, and dealer frames and stickers are all letters);
 * - `eu`: 4 to 10, mostly a mix (the national series differ too much for one pattern);
 * - `br`: the old `LLL9999` and the Mercosur `LLL9L99`.
 * Without a region: 2 to 10, a mix preferred.
 */

export const REGIONS = ['us', 'eu', 'br'] as const;
export type Region = (typeof REGIONS)[number];

export function isRegion(value: string): value is Region {
  return (REGIONS as readonly string[]).includes(value);
}

/**
 * A reading in the form a region writes its plates. US plates print the letter O and the digit 0
 * with one glyph and most states issue only the digit, so US readers (and the records plates are
 * matched against) write 0; a recognizer's O on a US plate is taken as 0.
 */
export function regionSpelling(plate: string, region?: string): string {
  return region === 'us' ? plate.replace(/O/g, '0') : plate;
}

/** Letters and digits as `L` and `D`: `ABC1234` → `LLLDDDD`. */
export function shapeOf(plate: string): string {
  return plate.replace(/[A-Z]/g, 'L').replace(/[0-9]/g, 'D');
}

export function formatScore(plate: string, region?: string): number {
  const length = plate.length;
  const hasDigit = /[0-9]/.test(plate);
  const hasLetter = /[A-Z]/.test(plate);
  switch (region) {
    case 'us':
      if (length < 2 || length > 8) return 0;
      if (length <= 4) return hasDigit ? 0.6 : 0.4;
      return hasDigit ? (hasLetter || length === 7 ? 1 : 0.8) : 0.5;
    case 'eu':
      if (length < 4 || length > 10) return 0;
      return hasDigit && hasLetter ? 1 : 0.4;
    case 'br': {
      const shape = shapeOf(plate);
      if (shape === 'LLLDDDD' || shape === 'LLLDLDD') return 1;
      return 0;
    }
    default:
      if (length < 2 || length > 10) return 0;
      if (length <= 3) return 0.4;
      return hasDigit && hasLetter ? 1 : 0.6;
  }
}

/**
 * For regions whose plates have a fixed letter/digit pattern, the letter or digit that a slot
 * needs; undefined where any character may stand.
 */
export function slotKinds(length: number, region?: string): ('L' | 'D' | undefined)[] | undefined {
  if (region === 'br' && length === 7) return ['L', 'L', 'L', 'D', undefined, 'D', 'D'];
  return undefined;
}
