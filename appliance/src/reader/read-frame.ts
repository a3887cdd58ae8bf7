/**
 * One frame through the reader: decode, find text (detector at a bounded size), keep the boxes a
 * plate could be, read each one from the full-resolution frame with its crop upscaled to the
 * recognizer's 48-pixel height, score the readings, and keep the plates.
 */
import { readingsOf } from './candidates.ts';
import { decodeCtc } from './ctc.ts';
import { decodeJpeg } from './decode-jpeg.ts';
import type { OcrEngine } from './ocr-engine.ts';
import { isPlateLikeBox, overlapShare, DEFAULT_BOX_RULES, type BoxRules } from './plate-rules.ts';
import { sampleRect, toPlanarBgr, type Raster, type Rect } from './raster.ts';
import { DEFAULT_TEXT_BOX_OPTIONS, findTextBoxes, type TextBoxOptions } from './text-boxes.ts';
import type { FrameResult, PlateRead, ReadOptions } from './types.ts';

export interface ReaderTuning {
  /** The detector sees the frame scaled so its longer side is at most this (a multiple of 32). */
  detectMaxSide: number;
  textBoxes: TextBoxOptions;
  boxRules: BoxRules;
  /** Plates below this confidence are not reported. */
  minConfidence: number;
  /** Extra crop around a text box, as a share of its height (each side). */
  cropMargin: number;
}

export const DEFAULT_TUNING: ReaderTuning = {
  detectMaxSide: 1280,
  textBoxes: DEFAULT_TEXT_BOX_OPTIONS,
  boxRules: DEFAULT_BOX_RULES,
  minConfidence: 0.5,
  cropMargin: 0,
};

const REC_HEIGHT = 48;
// PaddleOCR's recognizer was trained on 48×320 inputs; narrower crops are padded to that width.
const REC_MIN_WIDTH = 320;
const REC_MAX_WIDTH = 960;
const MAX_BOXES = 12;

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
  const small = sampleRect(frame, { x: 0, y: 0, width: frame.width, height: frame.height }, width, height);
  const map = await engine.detect(toPlanarBgr(small, 0, 1), width, height);
  const sx = frame.width / width;
  const sy = frame.height / height;
  return findTextBoxes(map, width, height, tuning.textBoxes)
    .map((b) => ({ x: b.x * sx, y: b.y * sy, width: b.width * sx, height: b.height * sy, score: b.score }))
    .filter((b) => isPlateLikeBox(b, frame.width, tuning.boxRules))
    .sort((a, b) => b.score * b.height - a.score * a.height)
    .slice(0, MAX_BOXES);
}

async function readBox(engine: OcrEngine, frame: Raster, box: Rect, region: string | undefined, tuning: ReaderTuning): Promise<PlateRead | undefined> {
  const m = box.height * tuning.cropMargin;
  const rect = { x: box.x - m, y: box.y - m, width: box.width + 2 * m, height: box.height + 2 * m };
  const width = Math.min(REC_MAX_WIDTH, Math.max(8, Math.round((REC_HEIGHT * rect.width) / rect.height)));
  const crop = sampleRect(frame, rect, width, REC_HEIGHT);
  const padded = Math.max(width, REC_MIN_WIDTH);
  const out = await engine.recognize(toPlanarBgr(crop, 0.5, 0.5, padded), padded, REC_HEIGHT);
  const readings = readingsOf(decodeCtc(out.probs, out.steps, out.classes, engine.alphabet), region);
  const [best, ...others] = readings;
  if (!best) return undefined;
  return {
    plate: best.plate,
    confidence: round3(best.confidence),
    box: roundBox(clampBox(box, frame)),
    candidates: others.map((c) => ({ plate: c.plate, confidence: round3(c.confidence) })),
  };
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
