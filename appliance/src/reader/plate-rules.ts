/**
 * Which text boxes can hold a plate, from their shape alone, before any recognition is spent on
 * them. A plate's text line (as the detector boxes it, grown by its unclip margin) is wider than
 * tall but not a long sentence, and tall enough in the frame to carry legible characters.
 */
import type { Rect } from './raster.ts';

export interface BoxRules {
  /** Below this height (frame pixels) characters are a few pixels tall: not legible. */
  minHeight: number;
  minAspect: number;
  maxAspect: number;
  /** A box wider than this share of the frame is a banner or a timestamp strip, not a plate. */
  maxWidthShare: number;
}

export const DEFAULT_BOX_RULES: BoxRules = { minHeight: 10, minAspect: 0.9, maxAspect: 9, maxWidthShare: 0.5 };

export function isPlateLikeBox(box: Rect, frameWidth: number, rules: BoxRules = DEFAULT_BOX_RULES): boolean {
  const aspect = box.width / box.height;
  return box.height >= rules.minHeight && aspect >= rules.minAspect && aspect <= rules.maxAspect && box.width <= frameWidth * rules.maxWidthShare;
}

/** Share of the smaller box covered by the other: 1 when one box holds the other. */
export function overlapShare(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / Math.min(a.width * a.height, b.width * b.height);
}
