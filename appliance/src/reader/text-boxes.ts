/**
 * From the text detector's probability map to boxes (the DB post-processing of PaddleOCR, kept to
 * upright rectangles): threshold the map, take each connected region, score it by its mean
 * probability, and grow it back out (the model predicts a shrunken text core; `unclipRatio` is the
 * growth PaddleOCR trains with). Pure: a map in, boxes in the map's own pixels out.
 */
import type { Rect } from './raster.ts';

export interface ScoredBox extends Rect {
  /** Mean text probability over the region's pixels, 0..1. */
  score: number;
}

export interface TextBoxOptions {
  /** A pixel is text above this probability. */
  threshold: number;
  /** A region is kept when its mean probability is at least this. */
  boxThreshold: number;
  unclipRatio: number;
  /** Regions thinner than this (map pixels) are noise. */
  minSide: number;
}

export const DEFAULT_TEXT_BOX_OPTIONS: TextBoxOptions = {
  threshold: 0.3,
  boxThreshold: 0.5,
  unclipRatio: 1.5,
  minSide: 3,
};

export function findTextBoxes(prob: Float32Array, width: number, height: number, options: TextBoxOptions = DEFAULT_TEXT_BOX_OPTIONS): ScoredBox[] {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: ScoredBox[] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || (prob[start] ?? 0) <= options.threshold) continue;
    // Flood fill one region (4-connected), keeping its extent and probability sum.
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let minX = width;
    let minY = height;
    let maxX = -1;
    let maxY = -1;
    let sum = 0;
    let count = 0;
    while (top > 0) {
      const i = stack[--top] ?? 0;
      const x = i % width;
      const y = (i - x) / width;
      sum += prob[i] ?? 0;
      count++;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (x > 0) top = visit(i - 1, top);
      if (x < width - 1) top = visit(i + 1, top);
      if (y > 0) top = visit(i - width, top);
      if (y < height - 1) top = visit(i + width, top);
    }
    const w = maxX - minX + 1;
    const h = maxY - minY + 1;
    const score = sum / count;
    if (Math.min(w, h) < options.minSide || score < options.boxThreshold) continue;
    // The offset that grows a w×h polygon by unclipRatio × area / perimeter on every side.
    const grow = (w * h * options.unclipRatio) / (2 * (w + h));
    boxes.push({ x: minX - grow, y: minY - grow, width: w + 2 * grow, height: h + 2 * grow, score });
  }
  return boxes;

  function visit(i: number, top: number): number {
    if (seen[i] || (prob[i] ?? 0) <= options.threshold) return top;
    seen[i] = 1;
    stack[top] = i;
    return top + 1;
  }
}
