/**
 * Pixels in memory and the two things the reader does to them: sample a rectangle of a frame at
 * another size (crop and resize in one bilinear pass) and lay an image out as a model's input
 * tensor. Written here rather than taken from an image library so the appliance carries no native
 * image code beyond the JPEG decoder.
 */

/** An RGBA image, 4 bytes a pixel, rows top to bottom. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A rectangle in a raster's pixels; fractional edges are fine (sampling is bilinear). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Samples `rect` of `src` into a new `outWidth`×`outHeight` raster, bilinear. Pixels outside the
 * source repeat its edge, so a rectangle that spills over the frame's border stays well defined.
 */
export function sampleRect(src: Raster, rect: Rect, outWidth: number, outHeight: number): Raster {
  const out = new Uint8Array(outWidth * outHeight * 4);
  const sx = rect.width / outWidth;
  const sy = rect.height / outHeight;
  const maxX = src.width - 1;
  const maxY = src.height - 1;
  const data = src.data;
  const stride = src.width * 4;
  for (let oy = 0; oy < outHeight; oy++) {
    // Pixel centres map to pixel centres, as in every common resize.
    let fy = rect.y + (oy + 0.5) * sy - 0.5;
    fy = fy < 0 ? 0 : fy > maxY ? maxY : fy;
    const y0 = Math.floor(fy);
    const y1 = y0 < maxY ? y0 + 1 : y0;
    const wy = fy - y0;
    for (let ox = 0; ox < outWidth; ox++) {
      let fx = rect.x + (ox + 0.5) * sx - 0.5;
      fx = fx < 0 ? 0 : fx > maxX ? maxX : fx;
      const x0 = Math.floor(fx);
      const x1 = x0 < maxX ? x0 + 1 : x0;
      const wx = fx - x0;
      const a = y0 * stride + x0 * 4;
      const b = y0 * stride + x1 * 4;
      const c = y1 * stride + x0 * 4;
      const d = y1 * stride + x1 * 4;
      const o = (oy * outWidth + ox) * 4;
      for (let k = 0; k < 3; k++) {
        const top = (data[a + k] ?? 0) * (1 - wx) + (data[b + k] ?? 0) * wx;
        const bottom = (data[c + k] ?? 0) * (1 - wx) + (data[d + k] ?? 0) * wx;
        out[o + k] = top * (1 - wy) + bottom * wy + 0.5;
      }
      out[o + 3] = 255;
    }
  }
  return { width: outWidth, height: outHeight, data: out };
}

/**
 * A raster as a 1×3×H×W float tensor in B, G, R plane order (PaddleOCR's models were trained on
 * OpenCV's BGR images), each value `(v / 255 - mean) / std`. `padWidth` widens the tensor with
 * zeros on the right, as PaddleOCR pads its recognizer's input to a minimum width.
 */
export function toPlanarBgr(src: Raster, mean: number, std: number, padWidth = src.width): Float32Array {
  const w = Math.max(padWidth, src.width);
  const plane = w * src.height;
  const out = new Float32Array(plane * 3);
  const data = src.data;
  for (let y = 0; y < src.height; y++) {
    for (let x = 0; x < src.width; x++) {
      const i = (y * src.width + x) * 4;
      const o = y * w + x;
      out[o] = ((data[i + 2] ?? 0) / 255 - mean) / std;
      out[plane + o] = ((data[i + 1] ?? 0) / 255 - mean) / std;
      out[2 * plane + o] = ((data[i] ?? 0) / 255 - mean) / std;
    }
  }
  return out;
}

/**
 * Levels stretched so the crop's darkest 2 % of pixels go black and its brightest 2 % white (grey
 * level, applied to each channel alike): dim and hazy plates get the contrast the recognizer was
 * trained on. Returns a new raster.
 */
export function stretchContrast(src: Raster): Raster {
  const n = src.width * src.height;
  const histogram = new Uint32Array(256);
  const data = src.data;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const grey = ((data[o] ?? 0) * 299 + (data[o + 1] ?? 0) * 587 + (data[o + 2] ?? 0) * 114) / 1000;
    histogram[Math.round(grey)] = (histogram[Math.round(grey)] ?? 0) + 1;
  }
  const cut = n * 0.02;
  let low = 0;
  for (let seen = 0; low < 255 && seen + (histogram[low] ?? 0) <= cut; low++) seen += histogram[low] ?? 0;
  let high = 255;
  for (let seen = 0; high > 0 && seen + (histogram[high] ?? 0) <= cut; high--) seen += histogram[high] ?? 0;
  const out = new Uint8Array(data.length);
  const range = Math.max(high - low, 1);
  for (let i = 0; i < data.length; i += 4) {
    for (let k = 0; k < 3; k++) {
      const v = (((data[i + k] ?? 0) - low) * 255) / range;
      out[i + k] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
    out[i + 3] = 255;
  }
  return { width: src.width, height: src.height, data: out };
}
