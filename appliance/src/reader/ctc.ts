/**
 * Greedy CTC decoding of the recognizer's output, narrowed to what a plate can hold. The PaddleOCR
 * recognizer knows 6,600 characters; a plate only A-Z and 0-9. At each time step the letters'
 * upper and lower case are pooled, and anything else (a dash, a dot, a state emblem read as a
 * Chinese character) counts as a separator: it ends the current character without adding one.
 * Each character keeps its probability and the next likeliest plate characters at its strongest
 * step, which the candidates are built from.
 */

export interface CharAlternative {
  char: string;
  prob: number;
}

export interface DecodedChar {
  char: string;
  prob: number;
  /** Other plate characters at the same step, likeliest first (at most 3). */
  alternatives: CharAlternative[];
}

export interface Alphabet {
  /** For each class of the model's output: the plate character it stands for, or '' for none. */
  plateCharOf: string[];
}

const PLATE_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The recognizer's classes from its character list: class 0 is CTC's blank, class i is line i of
 * the list, and one last class is the space PaddleOCR appends.
 */
export function alphabetFromDictionary(lines: string[]): Alphabet {
  const plateCharOf = [''];
  for (const line of [...lines, ' ']) {
    const upper = line.toUpperCase();
    plateCharOf.push(upper.length === 1 && PLATE_CHARS.includes(upper) ? upper : '');
  }
  return { plateCharOf };
}

/** Decodes `steps` rows of `classes` probabilities (softmax output, row-major). */
export function decodeCtc(probs: Float32Array, steps: number, classes: number, alphabet: Alphabet): DecodedChar[] {
  const out: DecodedChar[] = [];
  const pooled = new Map<string, number>();
  let previous = ''; // '' blank or separator; otherwise the character being emitted
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    pooled.clear();
    let other = 0;
    for (let c = 1; c < classes; c++) {
      const p = probs[row + c] ?? 0;
      const char = alphabet.plateCharOf[c] ?? '';
      if (char) pooled.set(char, (pooled.get(char) ?? 0) + p);
      else if (p > other) other = p;
    }
    let best = '';
    let bestProb = probs[row] ?? 0; // blank
    for (const [char, p] of pooled) {
      if (p > bestProb) {
        best = char;
        bestProb = p;
      }
    }
    if (other > bestProb) {
      previous = '';
      continue;
    }
    if (best === '') {
      previous = '';
      continue;
    }
    const alternatives = [...pooled]
      .filter(([char]) => char !== best)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([char, prob]) => ({ char, prob }));
    const last = out[out.length - 1];
    if (best === previous && last) {
      if (bestProb > last.prob) {
        last.prob = bestProb;
        last.alternatives = alternatives;
      }
      continue;
    }
    out.push({ char: best, prob: bestProb, alternatives });
    previous = best;
  }
  return out;
}
