import { oneEdit } from '@alpr/shared/detection/one-edit';
import type { PlateBox, PlateRead } from '../reader/types.ts';

/**
 * Passage voting for the ordinary-camera kind (docs/ordinary-cameras.md "One read per
 * passage"). A car in front of a camera polled at 4 frames a second is read in several frames,
 * and OCR gives a character wrong now and then (`8` for `B`). Reads of the same plate, the same
 * text or one edit away from a reading already in the passage, belong to one passage; a passage
 * ends when `gapMs` passes without a read of it. Each ended passage gives ONE result: the text
 * with the most confidence summed over its readings, its best frame, and the other texts as
 * candidates. Pure: the caller gives the times and keeps the state.
 *
 * `F` is whatever the caller needs to build the images of the best frame (the JPEG bytes):
 * only the best frame of each passage is kept, so memory stays one frame per open passage.
 */

export interface VoteConfig {
  /** A passage ends after this long without a read of it. */
  gapMs: number;
  /** Readings below this confidence are ignored (OCR noise on a wall or a sign). */
  minConfidence: number;
  /** A passage still open after this long is closed anyway (a parked car), so its read is not held back for ever. */
  maxPassageMs: number;
}

export const DEFAULT_VOTE_CONFIG: VoteConfig = { gapMs: 3_000, minConfidence: 0.3, maxPassageMs: 60_000 };

interface Reading {
  plate: string;
  confidence: number;
}

interface BestFrame<F> {
  at: number;
  confidence: number;
  plate: string;
  box: PlateBox;
  frame: F;
}

export interface OpenPassage<F> {
  firstAt: number;
  lastAt: number;
  readings: Reading[];
  /** The reader's own alternative readings of this passage's regions. */
  alternatives: Reading[];
  best: BestFrame<F>;
}

export interface PassageResult<F> {
  plate: string;
  /** Mean confidence of the winning text's readings, scaled by its share of the passage's readings. */
  confidence: number;
  /** Other texts of the passage, best first (summed confidence), with their mean confidence. */
  candidates: { plate: string; confidence: number }[];
  /** Capture time of the best frame showing the winning text. */
  at: number;
  box: PlateBox;
  frame: F;
  /** Frames that contributed a reading. */
  reads: number;
}

export interface VoterState<F> {
  open: OpenPassage<F>[];
}

export const emptyVoter = <F>(): VoterState<F> => ({ open: [] });

const sameOrOneEdit = (a: string, b: string): boolean => a === b || oneEdit(a, b) !== null;

const belongsTo = <F>(p: OpenPassage<F>, plate: string): boolean => p.readings.some((r) => sameOrOneEdit(r.plate, plate));

/** Adds one frame's reads (captured at `at`); returns the passages this frame's time ended. */
export function addFrame<F>(state: VoterState<F>, at: number, plates: readonly PlateRead[], frame: F, config: VoteConfig): PassageResult<F>[] {
  for (const read of plates) {
    if (read.confidence < config.minConfidence || read.plate.length === 0) continue;
    const reading = { plate: read.plate, confidence: read.confidence };
    const alternatives = read.candidates.map((c) => ({ plate: c.plate, confidence: c.confidence }));
    const passage = state.open.find((p) => belongsTo(p, read.plate));
    if (!passage) {
      state.open.push({
        firstAt: at,
        lastAt: at,
        readings: [reading],
        alternatives,
        best: { at, confidence: read.confidence, plate: read.plate, box: read.box, frame },
      });
      continue;
    }
    passage.readings.push(reading);
    passage.alternatives.push(...alternatives);
    passage.lastAt = Math.max(passage.lastAt, at);
  }
  // The best frame is chosen once the winner is known at the end; meanwhile keep the best
  // reading of the text currently ahead, so one frame is held per passage.
  for (const p of state.open) {
    const leader = tally(p.readings)[0];
    if (!leader) continue;
    for (const read of plates) {
      if (read.plate !== leader.plate) continue;
      if (p.best.plate !== leader.plate || read.confidence > p.best.confidence)
        p.best = { at, confidence: read.confidence, plate: read.plate, box: read.box, frame };
    }
  }
  return endPassages(state, at, config);
}

/** Passages with no read for `gapMs` (or open longer than `maxPassageMs`) at time `now`, removed from the state. */
export function endPassages<F>(state: VoterState<F>, now: number, config: VoteConfig): PassageResult<F>[] {
  const ended: PassageResult<F>[] = [];
  state.open = state.open.filter((p) => {
    const over = now - p.lastAt >= config.gapMs || now - p.firstAt >= config.maxPassageMs;
    if (over) ended.push(resultOf(p));
    return !over;
  });
  return ended;
}

/** Every open passage, ended now (the camera stops). */
export function flushPassages<F>(state: VoterState<F>): PassageResult<F>[] {
  const all = state.open.map(resultOf);
  state.open = [];
  return all;
}

interface Tally {
  plate: string;
  sum: number;
  count: number;
}

function tally(readings: readonly Reading[]): Tally[] {
  const byPlate = new Map<string, Tally>();
  for (const r of readings) {
    const t = byPlate.get(r.plate) ?? { plate: r.plate, sum: 0, count: 0 };
    t.sum += r.confidence;
    t.count += 1;
    byPlate.set(r.plate, t);
  }
  // Ties go to the longer text (a dropped character is the commoner OCR fault), then alphabetical, so the vote is stable.
  return [...byPlate.values()].sort((a, b) => b.sum - a.sum || b.plate.length - a.plate.length || a.plate.localeCompare(b.plate));
}

function resultOf<F>(p: OpenPassage<F>): PassageResult<F> {
  const votes = tally(p.readings);
  const winner = votes[0] as Tally;
  const mean = (t: Tally): number => t.sum / t.count;
  const others = votes.slice(1).map((t) => ({ plate: t.plate, confidence: round(mean(t)) }));
  const seen = new Set([winner.plate, ...others.map((o) => o.plate)]);
  const alternatives = [...p.alternatives].sort((a, b) => b.confidence - a.confidence).filter((a) => !seen.has(a.plate) && seen.add(a.plate));
  return {
    plate: winner.plate,
    confidence: round(mean(winner) * (winner.count / p.readings.length)),
    candidates: [...others, ...alternatives.map((a) => ({ plate: a.plate, confidence: round(a.confidence) }))].slice(0, 10),
    at: p.best.at,
    box: p.best.box,
    frame: p.best.frame,
    reads: p.readings.length,
  };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
