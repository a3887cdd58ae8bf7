/**
 * What the ordinary-camera simulator (snapshot-camera.ts) shows: a playlist of passages, each a
 * picture held for a while, then the empty road. Two sources: drawn cars with their plates
 * (draw-plate.ts), and the public OpenALPR benchmark photographs of US cars kept beside the
 * repository in `../shared/datasets/openalpr-us` (read from there, never copied in; each photo
 * has a `.txt` label: file, x, y, width, height, plate).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sceneJpeg } from './draw-plate.ts';
import { encodeJpeg } from './jpeg.ts';
import { createRaster, fillRect } from './raster.ts';

export interface Passage {
  /** The picture served while the car is in view. */
  jpeg: Buffer;
  /** The plate it shows (the label), or null for a picture with no plate. */
  plate: string | null;
  /** Where it comes from: `drawn` or the photograph's file name. */
  name: string;
}

/** The dataset folder: `../shared/datasets/openalpr-us` from the repository root. */
export const DATASET_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'datasets', 'openalpr-us');

export const datasetAvailable = (dir = DATASET_DIR): boolean => existsSync(dir);

export interface DatasetPhoto {
  file: string;
  plate: string;
  box: { x: number; y: number; width: number; height: number };
}

/** The labelled photographs, sorted by file name (a stable subset is the first `count`). */
export function datasetPhotos(dir = DATASET_DIR): DatasetPhoto[] {
  const out: DatasetPhoto[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.txt')) continue;
    const [file, x, y, width, height, plate] = readFileSync(join(dir, name), 'utf8').trim().split(/\s+/);
    if (!file || !plate || !existsSync(join(dir, file))) continue;
    out.push({ file, plate: plate.toUpperCase(), box: { x: Number(x), y: Number(y), width: Number(width), height: Number(height) } });
  }
  return out;
}

export function datasetPassages(count: number, dir = DATASET_DIR, offset = 0): Passage[] {
  return datasetPhotos(dir)
    .slice(offset, offset + count)
    .map((p) => ({ jpeg: readFileSync(join(dir, p.file)), plate: p.plate, name: p.file }));
}

export function drawnPassages(plates: readonly string[], seed = 1): Passage[] {
  return plates.map((plate, i) => ({ jpeg: sceneJpeg(plate, { seed: seed + i }), plate, name: 'drawn' }));
}

/** The road with no car: what the camera sees between passages. */
export function emptyRoadJpeg(width = 640, height = 360): Buffer {
  const scene = createRaster(width, height, [170, 186, 200]);
  const road = Math.round(height * 0.42);
  fillRect(scene, 0, road - Math.round(height * 0.08), width, Math.round(height * 0.08), [96, 110, 92]);
  fillRect(scene, 0, road, width, height - road, [78, 78, 82]);
  return encodeJpeg(scene);
}
