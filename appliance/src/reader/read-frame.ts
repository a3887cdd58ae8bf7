/**
 * One frame through the reader: decode, find text (detector at a bounded size), keep the boxes a
 * plate could be, read each one from the full-resolution frame with its crop upscaled to the
 * recognizer's 48-pixel height, score the readings, and keep the plates.
 */
import { readingsOf } from './candidates.ts';
import { decodeCtc } from './ctc.ts';
import { decodeJpeg } from './decode-jpeg.ts';
import { planTiles } from './detect-tiles.ts';
import type { OcrEngine } from './ocr-engine.ts';
import { isPlateLikeBox, joinLineNeighbours, overlapShare, DEFAULT_BOX_RULES, type BoxRules } from './plate-rules.ts';
import { sampleRect, stretchContrast, toPlanarBgr, type Raster, type Rect } from './raster.ts';
import { DEFAULT_TEXT_BOX_OPTIONS, findTextBoxes, type TextBoxOptions } from './text-boxes.ts';
import type { FrameResult, PlateCandidate, PlateRead, ReadOptions } from './types.ts';

export interface ReaderTuning {
  /** The detector sees the frame scaled so its longer side is at most this (a multiple of 32). */
  detectMaxSide: number;
  /** The coarse detection runs in overlapping tiles of at most this many pixels (detect-tiles.ts). */
  detectTilePixels: number;
  /** Each tile overlaps its neighbours by at least this (detector pixels). */
  detectTileOverlap: number;
  textBoxes: TextBoxOptions;
  boxRules: BoxRules;
  /** Plates below this confidence are not reported. */
  minConfidence: number;
  /** Extra crop left and right of a text line, as a share of its height. */
  cropMargin: number;
  /** Height (pixels) a plate-like region is scaled to for the close-up detection. */
  refineHeight: number;
  /** Stretch each crop's levels before recognition (dim, hazy plates). */
  stretchContrast: boolean;
}

export const DEFAULT_TUNING: ReaderTuning = {
  detectMaxSide: 1280,
  // 1280×736 in three tiles of 512×736: about 100 MB of detector memory instead of 250, the same
  // plates read (docs/performance.md, "The appliance with its reader busy"). 260,000 read fewer.
  detectTilePixels: 380_000,
  detectTileOverlap: 96,
  textBoxes: DEFAULT_TEXT_BOX_OPTIONS,
  boxRules: DEFAULT_BOX_RULES,
  minConfidence: 0.75,
  cropMargin: 0.2,
  refineHeight: 128,
  stretchContrast: true,
};

const REC_HEIGHT = 48;
// PaddleOCR's recognizer was trained on 48×320 inputs; narrower crops are padded to that width.
const REC_MIN_WIDTH = 320;
const REC_MAX_WIDTH = 960;
const MAX_BOXES = 8;

export async function readFrame(engine: OcrEngine, jpeg: Uint8Array, options: ReadOptions = {}, tuning: ReaderTuning = DEFAULT_TUNING): Promise<FrameResult> {
  const started = performance.now();
  const frame = decodeJpeg(jpeg);
  const boxes = await detectText(engine, frame, tuning);
  const plates: PlateRead[] = [];
  for (const box of boxes) {
    const read = await readBox(engine, frame, box, options.region, tuning);
    if (read && read.confidence >= tuning.minConfidence) plates.push(read);
  }
  return {
    plates: keepStrongest(plates),
    width: frame.width,
    height: frame.height,
    ms: Math.round(performance.now() - started),
  };
}

/** Text boxes in frame pixels that pass the plate-likeness rules, likeliest text first. */
async function detectText(engine: OcrEngine, frame: Raster, tuning: ReaderTuning): Promise<Rect[]> {
  const scale = Math.min(1, tuning.detectMaxSide / Math.max(frame.width, frame.height));
  const width = Math.max(32, Math.round((frame.width * scale) / 32) * 32);
  const height = Math.max(32, Math.round((frame.height * scale) / 32) * 32);
  // Levels stretched: on dim or hazy frames the detector misses a grey-on-grey plate otherwise.
  const small = stretchContrast(sampleRect(frame, { x: 0, y: 0, width: frame.width, height: frame.height }, width, height));
  const map = await detectInTiles(engine, small, tuning);
  const sx = frame.width / width;
  const sy = frame.height / height;
  const found = findTextBoxes(map, width, height, tuning.textBoxes).map((b) => ({
    x: b.x * sx,
    y: b.y * sy,
    width: b.width * sx,
    height: b.height * sy,
    score: b.score,
  }));
  const joined = joinLineNeighbours(found).map((b) => ({ ...b, score: 0.5 }));
  return [...found, ...joined]
    .filter((b) => isPlateLikeBox(b, frame.width, tuning.boxRules))
    .sort((a, b) => b.score * b.height - a.score * a.height)
    .slice(0, MAX_BOXES);
}

/** The detector's probability map of `image`, computed tile by tile (detect-tiles.ts). */
async function detectInTiles(engine: OcrEngine, image: Raster, tuning: ReaderTuning): Promise<Float32Array> {
  const { columns, rows } = planTiles(image.width, image.height, tuning.detectTilePixels, tuning.detectTileOverlap);
  if (columns.length === 1 && rows.length === 1) return engine.detect(toPlanarBgr(image, 0, 1), image.width, image.height);
  const map = new Float32Array(image.width * image.height);
  for (const row of rows) {
    for (const column of columns) {
      const tile = sampleRect(image, { x: column.start, y: row.start, width: column.length, height: row.length }, column.length, row.length);
      const part = await engine.detect(toPlanarBgr(tile, 0, 1), column.length, row.length);
      for (let y = row.from; y < row.to; y++) {
        const offset = (y - row.start) * column.length - column.start;
        map.set(part.subarray(offset + column.from, offset + column.to), y * image.width + column.from);
      }
    }
  }
  return map;
}

async function readBox(engine: OcrEngine, frame: Raster, box: Rect, region: string | undefined, tuning: ReaderTuning): Promise<PlateRead | undefined> {
  // The coarse pass often boxes a whole plate (state name, characters and frame text as one
  // region), and squeezed to 48 pixels its characters are too small. A second, close-up detection
  // on the region upscaled finds the plate's own text lines; each is read and the best wins.
  const lines = [box, ...(await refineLines(engine, frame, box, tuning))];
  let best: PlateCandidate[] = [];
  for (const line of lines) {
    const readings = await recognizeLine(engine, frame, line, region, tuning);
    if ((readings[0]?.confidence ?? 0) > (best[0]?.confidence ?? 0)) best = readings;
  }
  const [first, ...others] = best;
  if (!first) return undefined;
  return {
    plate: first.plate,
    confidence: round3(first.confidence),
    box: roundBox(clampBox(box, frame)),
    candidates: others.map((c) => ({ plate: c.plate, confidence: round3(c.confidence) })),
  };
}

/** Text lines inside `box`, found by the detector on the region upscaled to REFINE_HEIGHT. */
async function refineLines(engine: OcrEngine, frame: Raster, box: Rect, tuning: ReaderTuning): Promise<Rect[]> {
  const region = {
    x: box.x - box.width * 0.1,
    y: box.y - box.height * 0.25,
    width: box.width * 1.2,
    height: box.height * 1.5,
  };
  const scale = tuning.refineHeight / region.height;
  const width = Math.min(1024, Math.max(32, Math.round((region.width * scale) / 32) * 32));
  const height = Math.max(32, Math.round((region.height * scale) / 32) * 32);
  const patch = sampleRect(frame, region, width, height);
  const map = await engine.detect(toPlanarBgr(patch, 0, 1), width, height);
  const sx = region.width / width;
  const sy = region.height / height;
  const lines = findTextBoxes(map, width, height, tuning.textBoxes)
    .map((b) => ({ x: region.x + b.x * sx, y: region.y + b.y * sy, width: b.width * sx, height: b.height * sy }))
    .filter((b) => b.width > b.height * 0.8);
  // A plate's characters are its tallest text; small lines (state, slogan, sticker) are kept
  // only if close to that height.
  const tallest = Math.max(0, ...lines.map((l) => l.height));
  const tall = lines.filter((l) => l.height >= tallest * 0.6);
  return [...tall, ...joinLineNeighbours(tall)].slice(0, 4);
}

async function recognizeLine(engine: OcrEngine, frame: Raster, line: Rect, region: string | undefined, tuning: ReaderTuning): Promise<PlateCandidate[]> {
  // Sideways margin only: the detector's box often ends inside a plate's last character.
  const m = line.height * tuning.cropMargin;
  const rect = { x: line.x - m, y: line.y, width: line.width + 2 * m, height: line.height };
  const width = Math.min(REC_MAX_WIDTH, Math.max(8, Math.round((REC_HEIGHT * rect.width) / rect.height)));
  const crop = tuning.stretchContrast ? stretchContrast(sampleRect(frame, rect, width, REC_HEIGHT)) : sampleRect(frame, rect, width, REC_HEIGHT);
  const padded = Math.max(width, REC_MIN_WIDTH);
  const out = await engine.recognize(toPlanarBgr(crop, 0.5, 0.5, padded), padded, REC_HEIGHT);
  return readingsOf(decodeCtc(out.probs, out.steps, out.classes, engine.alphabet), region);
}

/** Where two reads cover the same place (a plate and its own frame text), the stronger one stays. */
function keepStrongest(plates: PlateRead[]): PlateRead[] {
  const sorted = [...plates].sort((a, b) => b.confidence - a.confidence);
  const kept: PlateRead[] = [];
  for (const p of sorted) {
    if (!kept.some((k) => overlapShare(k.box, p.box) > 0.5)) kept.push(p);
  }
  return kept;
}

function clampBox(box: Rect, frame: Raster): Rect {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  return {
    x,
    y,
    width: Math.min(frame.width, box.x + box.width) - x,
    height: Math.min(frame.height, box.y + box.height) - y,
  };
}

function roundBox(box: Rect): PlateRead['box'] {
  return {
    x: Math.round(box.x),
    y: Math.round(box.y),
    width: Math.round(box.width),
    height: Math.round(box.height),
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
