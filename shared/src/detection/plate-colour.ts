/**
 * Chinese ITS firmware (vendor_a) writes the plate colour in front of the plate, e.g.
 * `蓝京A12345` for a blue Beijing plate (docs/camera-formats.md "vendor_a"). The colour is not part
 * of the registration: kept, the same car read by a camera without the prefix would not
 * match. Stripped only when what is left still looks like a Chinese plate (one Han province
 * character, then a Latin letter), because `黑` is also the Heilongjiang province character:
 * `黑A12345` is a plate, `黑黑A12345` is a black Heilongjiang plate. See docs/normalization.md.
 */
export const PLATE_COLOUR_CHARACTERS = ['蓝', '黄', '白', '黑', '绿'] as const;

const COLOURS: ReadonlySet<string> = new Set(PLATE_COLOUR_CHARACTERS);
const CHINESE_PLATE_START = /^\p{Script=Han}[A-Z]/u;

/** Input is already uppercased plate text with separators removed. */
export function stripPlateColourPrefix(plate: string): string {
  const chars = Array.from(plate);
  let run = 0;
  while (run < chars.length && COLOURS.has(chars[run] ?? '')) run += 1;
  // Longest colour prefix first: `黄绿粤B12345` (yellow-green hybrid plate) loses both.
  for (let cut = run; cut >= 1; cut -= 1) {
    const rest = chars.slice(cut).join('');
    if (CHINESE_PLATE_START.test(rest)) return rest;
  }
  return plate;
}
