import { normalizePlateText } from '@alpr/shared/detection/normalize';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { MAX_PLATE_LENGTH } from '@alpr/shared/detection/limits';

export type WatchedPlate = { plate: string; key: string };

/**
 * A plate as an operator types it (`ab-12 cde`) into what the entry stores: plate text as
 * cameras' reads are normalized (uppercase letters and digits), and the matcher's key, the
 * stored `plate_normalized` (O/Q/D as 0, I/L as 1, S as 5). Undefined when nothing is left.
 */
export function watchedPlate(raw: string): WatchedPlate | { error: string } {
  const plate = normalizePlateText(raw);
  if (!plate) return { error: `"${raw.slice(0, 40)}" has no letters or digits to match` };
  if (Array.from(plate).length > MAX_PLATE_LENGTH) return { error: `${plate.slice(0, 40)} is longer than ${MAX_PLATE_LENGTH} characters` };
  return { plate, key: ocrNormalize(plate) };
}
