/**
 * The simulators' pictures: a plate crop showing the plate's characters and a scene of the
 * car with that crop in it, drawn with the bitmap font and encoded as baseline JPEG. The
 * same plate, seed and caption give the same bytes; the seed picks the car's colour, the
 * plate's colour and where the car stands.
 */
import { drawText, GLYPH_HEIGHT, textWidth } from './bitmap-font.ts';
import { encodeJpeg, padJpeg } from './jpeg.ts';
import { createRaster, fillRect, paste, type Raster, type Rgb } from './raster.ts';
import { createRng } from './rng.ts';

/**
 * 240x80: the dashboard shows crops in a 120x40 box (3:1), so a 3:1 crop keeps its shape at
 * half size; a plate fills most of it, as in a camera's crop.
 */
export const CROP_WIDTH = 240;
export const CROP_HEIGHT = 80;
/** 640x360 (16:9, a camera's shape) is enough to read the crop inside it. */
export const SCENE_WIDTH = 640;
export const SCENE_HEIGHT = 360;

const INK: Rgb = [20, 20, 24];
const EU_BLUE: Rgb = [0, 51, 153];
const PLATE_COLOURS: readonly Rgb[] = [
  [236, 236, 228], // white
  [246, 208, 40], // yellow (UK rear plates)
];
const CAR_COLOURS: readonly Rgb[] = [
  [200, 40, 40],
  [40, 70, 160],
  [190, 190, 195],
  [60, 60, 66],
  [235, 235, 235],
  [40, 110, 70],
];

/** Where the plate and its characters sit in the crop, for drawing and for tests reading it back. */
export interface PlateLayout {
  /** The characters drawn: upper-cased, anything else the font lacks drawn as a space. */
  text: string;
  plate: { x: number; y: number; width: number; height: number };
  /** Top-left of the first glyph, and pixels per font unit across and down. */
  textX: number;
  textY: number;
  sx: number;
  sy: number;
}

const PLATE_BOX = { x: 10, y: 14, width: 220, height: 52 };
const BAND = 18; // the blue EU band at the plate's left

export function plateLayout(plate: string): PlateLayout {
  // An unread plate ('unknown') still has a picture, with no readable characters on it.
  const text = plate === 'unknown' ? '' : plate.toUpperCase().replace(/[^A-Z0-9.:\- ]/g, ' ');
  const room = PLATE_BOX.width - BAND - 12;
  const sy = Math.floor((PLATE_BOX.height - 12) / GLYPH_HEIGHT); // 5: 35 px tall characters
  const sx = Math.max(1, Math.min(4, Math.floor(room / Math.max(1, textWidth(text.length, 1)))));
  const textX = PLATE_BOX.x + BAND + 6 + Math.floor((room - textWidth(text.length, sx)) / 2);
  const textY = PLATE_BOX.y + Math.floor((PLATE_BOX.height - GLYPH_HEIGHT * sy) / 2);
  return { text, plate: PLATE_BOX, textX, textY, sx, sy };
}

interface Look {
  car: Rgb;
  plate: Rgb;
  /** Left edge of the car in the scene. */
  carX: number;
}

function look(seed: number): Look {
  const rng = createRng(seed);
  const car = CAR_COLOURS[Math.floor(rng() * CAR_COLOURS.length)] ?? [128, 128, 128];
  const plate = PLATE_COLOURS[rng() < 0.8 ? 0 : 1] ?? [236, 236, 228];
  return { car, plate, carX: 40 + Math.floor(rng() * 200) };
}

export function plateCropPixels(plate: string, seed = 1): Raster {
  const { car, plate: colour } = look(seed);
  const layout = plateLayout(plate);
  const crop = createRaster(CROP_WIDTH, CROP_HEIGHT, car);
  const { x, y, width, height } = layout.plate;
  fillRect(crop, x - 2, y - 2, width + 4, height + 4, INK); // the plate's rim
  fillRect(crop, x, y, width, height, colour);
  fillRect(crop, x, y, BAND, height, EU_BLUE);
  drawText(crop, layout.text, layout.textX, layout.textY, layout.sx, layout.sy, INK);
  return crop;
}

/** Where the crop sits in the scene drawn with `seed`. */
export function cropOrigin(seed = 1): { x: number; y: number } {
  return { x: look(seed).carX + 60, y: 236 };
}

export function scenePixels(plate: string, seed = 1, caption = ''): Raster {
  const { car, carX } = look(seed);
  const scene = createRaster(SCENE_WIDTH, SCENE_HEIGHT, [170, 186, 200]); // sky
  fillRect(scene, 0, 120, SCENE_WIDTH, 30, [96, 110, 92]); // verge
  fillRect(scene, 0, 150, SCENE_WIDTH, SCENE_HEIGHT - 150, [78, 78, 82]); // road
  for (let x = 10; x < SCENE_WIDTH; x += 80) fillRect(scene, x, 340, 44, 8, [220, 220, 210]); // lane marks
  // The car from the front: roof, windscreen, body, lights, wheels.
  fillRect(scene, carX + 50, 110, 260, 60, car);
  fillRect(scene, carX + 64, 120, 232, 46, [40, 48, 58]);
  fillRect(scene, carX, 166, 360, 150, car);
  fillRect(scene, carX + 14, 190, 60, 22, [250, 248, 220]);
  fillRect(scene, carX + 286, 190, 60, 22, [250, 248, 220]);
  fillRect(scene, carX + 20, 312, 50, 30, [18, 18, 18]);
  fillRect(scene, carX + 290, 312, 50, 30, [18, 18, 18]);
  const origin = cropOrigin(seed);
  paste(scene, plateCropPixels(plate, seed), origin.x, origin.y);
  if (caption) {
    // The camera's own overlay, as most stamp time and name on the scene.
    fillRect(scene, 0, 0, SCENE_WIDTH, 22, [0, 0, 0]);
    drawText(scene, caption.toUpperCase(), 6, 4, 2, 2, [255, 255, 255]);
  }
  return scene;
}

/**
 * The smallest picture: a 24x8 blank plate, about 650 bytes (jpeg-js writes 600 bytes of
 * standard tables and header before any pixel). For tests that ask for images under a crop's size.
 */
export function tinyPlateJpeg(): Buffer {
  const raster = createRaster(24, 8, PLATE_COLOURS[0] ?? [236, 236, 228]);
  fillRect(raster, 0, 0, 4, 8, EU_BLUE);
  return encodeJpeg(raster);
}

export interface PictureOptions {
  seed?: number;
  /** Exact size in bytes, reached with padding (see padJpeg); a smaller size gives the picture as drawn. */
  size?: number;
  /** Scene only: text stamped along the top, such as the capture time. */
  caption?: string;
}

export function plateCropJpeg(plate: string, options: PictureOptions = {}): Buffer {
  const seed = options.seed ?? 1;
  return padJpeg(encodeJpeg(plateCropPixels(plate, seed)), options.size ?? 0, seed);
}

export function sceneJpeg(plate: string, options: PictureOptions = {}): Buffer {
  const seed = options.seed ?? 1;
  return padJpeg(encodeJpeg(scenePixels(plate, seed, options.caption)), options.size ?? 0, seed);
}
