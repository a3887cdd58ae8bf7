/**
 * The change check of the ordinary-camera kind (docs/ordinary-cameras.md "Frames"): a frame
 * goes to the plate reader only when it differs from the last frame that went there. Reading a
 * plate costs hundreds of milliseconds; comparing two 64x36 grey thumbnails costs microseconds,
 * and a gate or a street is still most of the day. Pure: pixels in, numbers out.
 */

export interface GreyThumbnail {
  width: number;
  height: number;
  /** One byte of luma per pixel, row by row. */
  data: Uint8Array;
}

/** 64 px across: a car entering a 1080p frame moves hundreds of pixels, still several here; sensor noise averages out. */
export const THUMBNAIL_WIDTH = 64;

/**
 * Mean absolute luma difference (0..255) above which a frame counts as changed. 4 is above
 * the noise of a still scene's JPEG re-encodes (about 1 on the simulator, 1-2 on a real sensor
 * at night) and below what a car entering a quarter of the frame does (10 and more).
 */
export const DEFAULT_CHANGE_THRESHOLD = 4;

/**
 * Grey thumbnail of RGBA pixels, `THUMBNAIL_WIDTH` across, aspect kept: each thumbnail pixel is
 * the mean of about 4x4 samples of its block (every pixel of a 1080p frame would cost 2 M
 * multiplications for the same answer).
 */
export function greyThumbnail(rgba: Uint8Array, width: number, height: number, targetWidth = THUMBNAIL_WIDTH): GreyThumbnail {
  const tw = Math.max(1, Math.min(targetWidth, width));
  const th = Math.max(1, Math.round((height * tw) / width));
  const step = Math.max(1, Math.floor(width / (tw * 4)));
  const sums = new Float64Array(tw * th);
  const counts = new Uint32Array(tw * th);
  for (let y = 0; y < height; y += step) {
    const ty = Math.min(th - 1, Math.floor((y * th) / height));
    for (let x = 0; x < width; x += step) {
      const tx = Math.min(tw - 1, Math.floor((x * tw) / width));
      const i = (y * width + x) * 4;
      const k = ty * tw + tx;
      // ITU-R BT.601 luma, the weights JPEG itself uses.
      sums[k] = (sums[k] ?? 0) + 0.299 * (rgba[i] ?? 0) + 0.587 * (rgba[i + 1] ?? 0) + 0.114 * (rgba[i + 2] ?? 0);
      counts[k] = (counts[k] ?? 0) + 1;
    }
  }
  const data = new Uint8Array(tw * th);
  for (let k = 0; k < data.length; k++) data[k] = Math.round((sums[k] ?? 0) / Math.max(1, counts[k] ?? 1));
  return { width: tw, height: th, data };
}

/** Mean absolute difference of two thumbnails; Infinity when their shapes differ (the camera changed resolution). */
export function meanAbsDiff(a: GreyThumbnail, b: GreyThumbnail): number {
  if (a.width !== b.width || a.height !== b.height) return Infinity;
  let total = 0;
  for (let k = 0; k < a.data.length; k++) total += Math.abs((a.data[k] ?? 0) - (b.data[k] ?? 0));
  return total / Math.max(1, a.data.length);
}

/** True when `next` should go to the reader: there is no previous frame, or it moved. */
export const hasChanged = (previous: GreyThumbnail | undefined, next: GreyThumbnail, threshold = DEFAULT_CHANGE_THRESHOLD): boolean =>
  previous === undefined || meanAbsDiff(previous, next) >= threshold;
