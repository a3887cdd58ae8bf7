/**
 * The coarse detection in overlapping tiles. The text detector's working memory grows with its
 * input's pixels (about 270 bytes a pixel: PP-OCRv4's head refines the map at full resolution
 * with 24-channel feature maps), so a 1280×736 frame took about 250 MB of ONNX Runtime's memory
 * in one pass. Tiles of at most `maxPixels` bound that; each tile overlaps its neighbours by
 * `overlap` pixels and gives the map only the part of the overlap nearer its own centre, so a
 * plate across a seam is still one region and no tile's border pixels are used.
 */

/** One tile: where it sits in the frame, and the part of the map it writes. */
export interface TileSpan {
  /** First pixel of the tile. */
  start: number;
  /** The tile's length (a multiple of 32, as the detector wants). */
  length: number;
  /** The map pixels this tile writes: [from, to). */
  from: number;
  to: number;
}

export interface TilePlan {
  columns: TileSpan[];
  rows: TileSpan[];
}

/**
 * Splits `total` pixels into `count` tiles of one length (a multiple of 32) that overlap by at
 * least `overlap`; the seam between two tiles is in the middle of their overlap.
 */
export function tileSpans(total: number, count: number, overlap: number): TileSpan[] {
  if (count <= 1) return [{ start: 0, length: total, from: 0, to: total }];
  const length = Math.min(total, Math.ceil((total + (count - 1) * overlap) / count / 32) * 32);
  const starts = Array.from({ length: count }, (_, i) => Math.round((i * (total - length)) / (count - 1)));
  return starts.map((start, i) => {
    const previousEnd = i > 0 ? (starts[i - 1] ?? 0) + length : 0;
    const nextStart = i < count - 1 ? (starts[i + 1] ?? total) : total;
    return {
      start,
      length,
      from: i === 0 ? 0 : Math.round((start + previousEnd) / 2),
      to: i === count - 1 ? total : Math.round((nextStart + start + length) / 2),
    };
  });
}

/** The fewest tiles (columns × rows) of at most `maxPixels` each that cover width × height. */
export function planTiles(width: number, height: number, maxPixels: number, overlap: number): TilePlan {
  let best: TilePlan | undefined;
  let bestCount = Infinity;
  for (let columns = 1; columns <= 8; columns++) {
    for (let rows = 1; rows <= 8; rows++) {
      if (columns * rows >= bestCount) break;
      const plan = { columns: tileSpans(width, columns, overlap), rows: tileSpans(height, rows, overlap) };
      const pixels = (plan.columns[0]?.length ?? width) * (plan.rows[0]?.length ?? height);
      if (pixels <= maxPixels) {
        best = plan;
        bestCount = columns * rows;
      }
    }
  }
  return best ?? { columns: tileSpans(width, 8, overlap), rows: tileSpans(height, 8, overlap) };
}
