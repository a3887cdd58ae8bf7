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

/**
 * Boxes on one line joined: a plate whose characters are split by a gap, a dash or an emblem
 * (`DL3 • C2Z`) comes out of the detector as two boxes. Returns the joined boxes only (each the
 * union of a run of neighbours), for the caller to read beside the originals.
 */
export function joinLineNeighbours(boxes: Rect[]): Rect[] {
  const sorted = [...boxes].sort((a, b) => a.x - b.x);
  const joined: Rect[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let run = sorted[i];
    if (!run) continue;
    let count = 1;
    for (let j = i + 1; j < sorted.length; j++) {
      const next = sorted[j];
      if (!next || !sameLine(run, next)) continue;
      run = union(run, next);
      count++;
    }
    if (count > 1 && !joined.some((b) => overlapShare(b, run) > 0.95)) joined.push(run);
  }
  return joined;
}

function sameLine(a: Rect, b: Rect): boolean {
  const minH = Math.min(a.height, b.height);
  const maxH = Math.max(a.height, b.height);
  const vertical = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const gap = b.x - (a.x + a.width);
  // Same height within 1.5×, overlapping by 60 % vertically, and less than one character height apart.
  return maxH <= minH * 1.5 && vertical >= minH * 0.6 && gap <= maxH && gap >= -maxH;
}

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}
