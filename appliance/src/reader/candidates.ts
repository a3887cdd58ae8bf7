/**
 * The readings of one text crop, best first: the decoded characters as they came, then the
 * variants a plate reader would also consider — each uncertain character replaced by the
 * recognizer's next choices at that step or by the character OCR most often mistakes it for
 * (O/0, I/1, B/8, …), and an uncertain character at either end dropped (a plate's border or a
 * bolt read as `I` or `1`). Each reading is scored by its characters' probabilities and by the
 * region's plate formats.
 */
import type { DecodedChar } from './ctc.ts';
import { formatScore, regionSpelling, slotKinds } from './plate-formats.ts';
import type { PlateCandidate } from './types.ts';

/** Characters the recognizer confuses on plate fonts, both ways. */
const CONFUSIONS: Record<string, string> = {
  O: '0Q',
  '0': 'OD',
  Q: 'O0',
  D: '0',
  I: '1',
  '1': 'I',
  B: '8',
  '8': 'B',
  S: '5',
  '5': 'S',
  Z: '2',
  '2': 'Z',
  G: '6',
  '6': 'G',
  A: '4',
  '4': 'A',
  T: '7',
  '7': 'T',
};

// A character is uncertain below this probability; only those are varied (and at most two at a
// time), which keeps the list short and stops a confident reading spawning look-alikes.
const UNCERTAIN = 0.9;
// A swap the recognizer did not propose gets this share of the character's missing probability.
const SWAP_SHARE = 0.5;
const MAX_CANDIDATES = 10;

interface Reading {
  chars: { char: string; prob: number }[];
  /** Characters dropped from the decoding: the probability that each was not there. */
  gaps?: number[];
}

/** Confidence of a reading: the geometric mean of its characters' probabilities, times its format score. */
export function scoreReading(chars: { prob: number }[], plate: string, region?: string): number {
  if (chars.length === 0) return 0;
  const logSum = chars.reduce((sum, c) => sum + Math.log(Math.max(c.prob, 1e-6)), 0);
  return Math.exp(logSum / chars.length) * formatScore(plate, region);
}

/** All readings of `decoded`, best first, de-duplicated, at most 11 (the best plus 10 others). */
export function readingsOf(decoded: DecodedChar[], region?: string): PlateCandidate[] {
  const readings: Reading[] = [{ chars: decoded.map((c) => ({ char: c.char, prob: c.prob })) }];
  const uncertain = decoded
    .map((c, i) => ({ i, prob: c.prob }))
    .filter((c) => c.prob < UNCERTAIN)
    .sort((a, b) => a.prob - b.prob)
    .slice(0, 4)
    .map((c) => c.i);
  const base = readings[0]?.chars ?? [];
  const variantsAt = (i: number): { char: string; prob: number }[] => {
    const c = decoded[i];
    if (!c) return [];
    const out = c.alternatives.filter((a) => a.prob > 0.02).map((a) => ({ char: a.char, prob: a.prob }));
    for (const swap of CONFUSIONS[c.char] ?? '') {
      if (!out.some((o) => o.char === swap)) out.push({ char: swap, prob: (1 - c.prob) * SWAP_SHARE });
    }
    return out;
  };
  for (const i of uncertain) {
    for (const v of variantsAt(i)) readings.push({ chars: replaced(base, i, v) });
  }
  // Two uncertain characters at once: the likeliest variant of each.
  for (let a = 0; a < uncertain.length; a++) {
    for (let b = a + 1; b < uncertain.length; b++) {
      const i = uncertain[a] ?? 0;
      const j = uncertain[b] ?? 0;
      const vi = variantsAt(i)[0];
      const vj = variantsAt(j)[0];
      if (vi && vj) readings.push({ chars: replaced(replaced(base, i, vi), j, vj) });
    }
  }
  // An uncertain end character dropped: the gap it leaves still counts, with the probability that
  // the character was not there (so dropping never beats keeping a likely character).
  for (const end of [0, base.length - 1]) {
    const c = base[end];
    if (c && c.prob < UNCERTAIN && base.length > 2) {
      readings.push({ chars: base.filter((_, k) => k !== end), gaps: [1 - c.prob] });
    }
  }
  // Regions with fixed slots: force each slot's kind with the look-alike table.
  const slots = slotKinds(base.length, region);
  if (slots) readings.push({ chars: forcedToSlots(base, slots) });

  const best = new Map<string, number>();
  for (const r of readings) {
    const plate = regionSpelling(r.chars.map((c) => c.char).join(''), region);
    const confidence = scoreReading([...r.chars, ...(r.gaps ?? []).map((prob) => ({ prob }))], plate, region);
    if (confidence > (best.get(plate) ?? -1)) best.set(plate, confidence);
  }
  return [...best]
    .map(([plate, confidence]) => ({ plate, confidence }))
    .filter((c) => c.plate.length > 0 && c.confidence > 0)
    .sort((a, b) => b.confidence - a.confidence)
    .slice(0, MAX_CANDIDATES + 1);
}

function replaced<T>(chars: T[], i: number, value: T): T[] {
  return chars.map((c, k) => (k === i ? value : c));
}

function forcedToSlots(chars: { char: string; prob: number }[], slots: ('L' | 'D' | undefined)[]): { char: string; prob: number }[] {
  return chars.map((c, i) => {
    const kind = slots[i];
    const isDigit = /[0-9]/.test(c.char);
    if (!kind || (kind === 'D') === isDigit) return c;
    const swap = [...(CONFUSIONS[c.char] ?? '')].find((s) => /[0-9]/.test(s) === (kind === 'D'));
    return swap ? { char: swap, prob: c.prob * SWAP_SHARE } : c;
  });
}
