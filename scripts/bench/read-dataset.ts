/**
 * The labelled plate photographs in `../shared/datasets/openalpr-us` (next to the repository; the
 * images are not copied into it) and how a reader's answers are scored against the labels.
 * Each `<name>.txt` holds `<image>\t<x>\t<y>\t<width>\t<height>\t<plate>`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlateBox, PlateRead } from '../../appliance/src/reader/types.ts';

export const DATASET_DIR = resolve(fileURLToPath(new URL('../../../shared/datasets/openalpr-us', import.meta.url)));

export interface LabelledPhoto {
  image: string;
  box: PlateBox;
  plate: string;
}

export function loadLabels(dir: string = DATASET_DIR): LabelledPhoto[] {
  if (!existsSync(dir)) throw new Error(`dataset not found: ${dir}`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .flatMap((f) => {
      const line = readFileSync(join(dir, f), 'utf8').trim();
      const [image, x, y, width, height, plate] = line.split('\t');
      if (!image || !plate) return [];
      return [{ image: join(dir, image), box: { x: +(x ?? 0), y: +(y ?? 0), width: +(width ?? 0), height: +(height ?? 0) }, plate }];
    });
}

export interface PhotoScore {
  /** The read at the labelled plate's place equals the label. */
  exact: boolean;
  /** Characters of the label matched in place by that read (0 when the plate was missed). */
  charsRight: number;
  missed: boolean;
  /** Reads elsewhere in the photograph. */
  falsePlates: number;
  read: string | undefined;
}

/** Scores one photograph's reads: the read whose box meets the label's box is the plate's. */
export function scorePhoto(label: LabelledPhoto, plates: PlateRead[]): PhotoScore {
  const atPlate = plates.filter((p) => meets(p.box, label.box));
  const read = atPlate[0]?.plate;
  return {
    exact: read === label.plate,
    charsRight: read === undefined ? 0 : charsInPlace(read, label.plate),
    missed: read === undefined,
    falsePlates: plates.length - atPlate.length,
    read,
  };
}

/** Characters equal position by position, the shorter string aligned at whichever end matches more. */
export function charsInPlace(read: string, label: string): number {
  let fromStart = 0;
  let fromEnd = 0;
  for (let i = 0; i < Math.min(read.length, label.length); i++) {
    if (read[i] === label[i]) fromStart++;
    if (read[read.length - 1 - i] === label[label.length - 1 - i]) fromEnd++;
  }
  return Math.max(fromStart, fromEnd);
}

function meets(a: PlateBox, b: PlateBox): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0;
}
