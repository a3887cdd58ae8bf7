/**
 * The dashboard's icon: a white number plate on the header's navy, drawn once from the
 * rectangles below as an SVG (linked from every page, `/ui/icon.svg`) and as a 32x32 ICO
 * (`/favicon.ico`, which browsers and tools still ask for on their own). No image file in
 * the repository and no build step: both are made here, in memory.
 */

interface Shape {
  x: number;
  y: number;
  w: number;
  h: number;
  /** Corner radius in the SVG; the ICO rounds only the background. */
  r: number;
  fill: readonly [number, number, number];
}

const NAVY = [0x12, 0x26, 0x3a] as const;
const WHITE = [0xff, 0xff, 0xff] as const;
const SIZE = 32;
const CORNER = 6;

/** Back to front: the tile, the plate, and four characters on it. */
const SHAPES: readonly Shape[] = [
  { x: 0, y: 0, w: SIZE, h: SIZE, r: CORNER, fill: NAVY },
  { x: 3, y: 10, w: 26, h: 12, r: 2, fill: WHITE },
  { x: 6, y: 13, w: 3, h: 6, r: 0, fill: NAVY },
  { x: 11, y: 13, w: 3, h: 6, r: 0, fill: NAVY },
  { x: 18, y: 13, w: 3, h: 6, r: 0, fill: NAVY },
  { x: 23, y: 13, w: 3, h: 6, r: 0, fill: NAVY },
];

const hex = (c: Shape['fill']): string => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

export const ICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}" width="${SIZE}" height="${SIZE}">` +
  SHAPES.map((s) => `<rect x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}"${s.r ? ` rx="${s.r}"` : ''} fill="${hex(s.fill)}"/>`).join('') +
  '</svg>';

/** Outside the tile's rounded corners: transparent in the ICO. */
function outsideCorner(x: number, y: number): boolean {
  const cx = x < CORNER ? CORNER : x >= SIZE - CORNER ? SIZE - CORNER - 1 : x;
  const cy = y < CORNER ? CORNER : y >= SIZE - CORNER ? SIZE - CORNER - 1 : y;
  return (x - cx) ** 2 + (y - cy) ** 2 > CORNER ** 2;
}

/** The colour of one pixel (top-left origin), or null where it is transparent. */
function pixel(x: number, y: number): Shape['fill'] | null {
  if (outsideCorner(x, y)) return null;
  let colour: Shape['fill'] | null = null;
  for (const s of SHAPES) if (x >= s.x && x < s.x + s.w && y >= s.y && y < s.y + s.h) colour = s.fill;
  return colour;
}

/**
 * A one-image ICO holding a 32-bit BMP (ICONDIR, one ICONDIRENTRY, BITMAPINFOHEADER with the
 * height doubled for the AND mask, BGRA rows bottom-up, then the 1-bit mask rows padded to
 * 4 bytes). Every browser and file viewer reads this form.
 */
export function faviconIco(): Uint8Array<ArrayBuffer> {
  const pixels = SIZE * SIZE * 4;
  const maskRow = Math.ceil(SIZE / 32) * 4;
  const image = 40 + pixels + maskRow * SIZE;
  const out = new Uint8Array(6 + 16 + image);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0, true);
  view.setUint16(2, 1, true); // an icon
  view.setUint16(4, 1, true); // one image
  view.setUint8(6, SIZE);
  view.setUint8(7, SIZE);
  view.setUint16(10, 1, true); // planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, image, true);
  view.setUint32(18, 22, true); // where the image starts
  const bmp = 22;
  view.setUint32(bmp, 40, true);
  view.setInt32(bmp + 4, SIZE, true);
  view.setInt32(bmp + 8, SIZE * 2, true);
  view.setUint16(bmp + 12, 1, true);
  view.setUint16(bmp + 14, 32, true);
  view.setUint32(bmp + 20, pixels + maskRow * SIZE, true);
  const data = bmp + 40;
  const mask = data + pixels;
  for (let y = 0; y < SIZE; y++) {
    const row = SIZE - 1 - y; // bottom-up
    for (let x = 0; x < SIZE; x++) {
      const colour = pixel(x, y);
      const at = data + (row * SIZE + x) * 4;
      if (colour === null) {
        const byte = mask + row * maskRow + (x >> 3);
        out[byte] = (out[byte] ?? 0) | (0x80 >> (x & 7));
        continue;
      }
      out[at] = colour[2];
      out[at + 1] = colour[1];
      out[at + 2] = colour[0];
      out[at + 3] = 0xff;
    }
  }
  return out;
}
