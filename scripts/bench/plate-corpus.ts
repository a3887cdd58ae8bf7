/**
 * A corpus of plates in real national formats with one OCR error outside the confusion
 * groups, and decoys two or more edits away (docs/search.md "One edit: recall and
 * precision"). Deterministic: a seeded generator, so figures repeat from run to run.
 *
 * Formats (letters L, digits N; separators dropped, as plate_normalized drops them):
 * UK LLNNLLL, France LLNNNLL, Germany L{1,3}L{1,2}N{1,4}, Netherlands NNLLLN and LLNNNL,
 * Italy LLNNNLL, Spain NNNNLLL (no vowels), Poland LLNNNNN and LLLNNNNL, Sweden LLLNNL,
 * Belgium NLLLNNN, US California NLLLNNN, Switzerland LLNNNNNN.
 */
import { confusionKey, CONFUSION_GROUPS } from '@alpr/shared/detection/ocr';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const SPANISH = 'BCDFGHJKLMNPRSTVWXYZ';

export const FORMATS: Record<string, (r: Random) => string> = {
  uk: (r) => r.pick(LETTERS, 2) + r.pick(DIGITS, 2) + r.pick(LETTERS, 3),
  france: (r) => r.pick(LETTERS, 2) + r.pick(DIGITS, 3) + r.pick(LETTERS, 2),
  germany: (r) => r.pick(LETTERS, r.int(1, 3)) + r.pick(LETTERS, r.int(1, 2)) + r.pick(DIGITS, r.int(1, 4)),
  netherlands: (r) => (r.int(0, 1) ? r.pick(DIGITS, 2) + r.pick(LETTERS, 3) + r.pick(DIGITS, 1) : r.pick(LETTERS, 2) + r.pick(DIGITS, 3) + r.pick(LETTERS, 1)),
  italy: (r) => r.pick(LETTERS, 2) + r.pick(DIGITS, 3) + r.pick(LETTERS, 2),
  spain: (r) => r.pick(DIGITS, 4) + r.pick(SPANISH, 3),
  poland: (r) => (r.int(0, 1) ? r.pick(LETTERS, 2) + r.pick(DIGITS, 5) : r.pick(LETTERS, 3) + r.pick(DIGITS, 4) + r.pick(LETTERS, 1)),
  sweden: (r) => r.pick(LETTERS, 3) + r.pick(DIGITS, 2) + r.pick(LETTERS, 1),
  belgium: (r) => r.pick(DIGITS, 1) + r.pick(LETTERS, 3) + r.pick(DIGITS, 3),
  california: (r) => r.pick(DIGITS, 1) + r.pick(LETTERS, 3) + r.pick(DIGITS, 3),
  switzerland: (r) => r.pick(LETTERS, 2) + r.pick(DIGITS, r.int(3, 6)),
};

export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  /** xorshift32: fast, seeded, good enough for a corpus. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x1_0000_0000;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}

const GROUP_OF = new Map<string, number>(CONFUSION_GROUPS.flatMap((g, i) => g.map((ch): [string, number] => [ch, i])));
const ALNUM = LETTERS + DIGITS;

/** A character OCR could misread `ch` as that is outside `ch`'s confusion group. */
function outOfGroup(r: Random, ch: string): string {
  for (;;) {
    const c = r.pick(ALNUM, 1);
    if (c !== ch && (GROUP_OF.get(c) === undefined || GROUP_OF.get(c) !== GROUP_OF.get(ch))) return c;
  }
}

export type ErrorKind = 'substitution' | 'insertion' | 'deletion';

/** One OCR error outside the groups: a wrong character, an extra one, or a lost one. */
export function misread(r: Random, plate: string, kind: ErrorKind): string {
  const i = r.int(0, plate.length - (kind === 'insertion' ? 0 : 1));
  if (kind === 'substitution') return plate.slice(0, i) + outOfGroup(r, plate[i] as string) + plate.slice(i + 1);
  if (kind === 'insertion') return plate.slice(0, i) + r.pick(ALNUM, 1) + plate.slice(i);
  return plate.slice(0, i) + plate.slice(i + 1);
}

/** Levenshtein distance by code point (the reference the index is checked against). */
export function editDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++)
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length] as number;
}

/**
 * Decoys for a query: plates two or more edits from it after the confusion key (a
 * transposition, two substitutions, a substitution and an insertion, two deletions),
 * built from the true plate so they look like near misses.
 */
export function decoys(r: Random, truePlate: string, query: string): string[] {
  const out = new Set<string>();
  const qk = confusionKey(query);
  for (let attempt = 0; attempt < 40 && out.size < 4; attempt++) {
    let d: string;
    const mode = attempt % 4;
    if (mode === 0) {
      const i = r.int(0, truePlate.length - 2);
      d = truePlate.slice(0, i) + truePlate[i + 1] + truePlate[i] + truePlate.slice(i + 2);
    } else if (mode === 1) d = misread(r, misread(r, truePlate, 'substitution'), 'substitution');
    else if (mode === 2) d = misread(r, misread(r, truePlate, 'substitution'), 'insertion');
    else d = misread(r, misread(r, truePlate, 'deletion'), 'deletion');
    if (d.length >= 2 && editDistance(confusionKey(d), qk) >= 2) out.add(d);
  }
  return [...out];
}

export interface CorpusCase {
  format: string;
  kind: ErrorKind;
  /** The plate stored (what the car carries). */
  plate: string;
  /** What OCR read: the query an investigator types. */
  query: string;
  decoys: string[];
}

/** `perFormat` cases for each format, the three error kinds in turn. */
export function buildCorpus(perFormat: number, seed = 38): CorpusCase[] {
  const r = new Random(seed);
  const kinds: ErrorKind[] = ['substitution', 'insertion', 'deletion'];
  const out: CorpusCase[] = [];
  for (const [format, make] of Object.entries(FORMATS)) {
    for (let i = 0; i < perFormat; i++) {
      const plate = make(r);
      const kind = kinds[i % 3] as ErrorKind;
      let query = misread(r, plate, kind);
      // The one-edit search takes 4 characters or more: a deletion from a 4-character plate
      // becomes a substitution instead, so every case is a query someone could type.
      if (query.length < 4) query = misread(r, plate, 'substitution');
      out.push({ format, kind: query.length === plate.length ? 'substitution' : kind, plate, query, decoys: decoys(r, plate, query) });
    }
  }
  return out;
}
