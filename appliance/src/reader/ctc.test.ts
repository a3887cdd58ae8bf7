import t from 'tap';
import { alphabetFromDictionary, decodeCtc } from './ctc.ts';

// A toy recognizer: classes are blank, then the list below, then the appended space.
const LIST = ['A', 'b', '7', '-', '中'];
const alphabet = alphabetFromDictionary(LIST);
const CLASSES = LIST.length + 2;
const index = (label: string): number => (label === 'blank' ? 0 : LIST.indexOf(label) + 1);

/** One step per entry: the named class gets `p`, the rest share what is left evenly. */
function steps(...rows: [string, number][]): Float32Array {
  const out = new Float32Array(rows.length * CLASSES);
  rows.forEach(([label, p], t) => {
    for (let c = 0; c < CLASSES; c++) out[t * CLASSES + c] = (1 - p) / (CLASSES - 1);
    out[t * CLASSES + index(label)] = p;
  });
  return out;
}

t.test('repeats collapse, a blank between them keeps both, lower case pools into upper', async (t) => {
  const probs = steps(['A', 0.9], ['A', 0.95], ['blank', 0.9], ['A', 0.8], ['b', 0.7], ['7', 0.6]);
  const chars = decodeCtc(probs, 6, CLASSES, alphabet);
  t.equal(chars.map((c) => c.char).join(''), 'AAB7');
  t.equal(chars[0]?.prob.toFixed(2), '0.95', 'a repeated character keeps its strongest step');
  t.equal(chars[2]?.char, 'B', 'b read as B');
});

t.test('a dash or a non-Latin character separates without adding a character', async (t) => {
  const probs = steps(['7', 0.9], ['-', 0.9], ['7', 0.9], ['中', 0.9], ['A', 0.9]);
  t.equal(
    decodeCtc(probs, 5, CLASSES, alphabet)
      .map((c) => c.char)
      .join(''),
    '77A',
  );
});

t.test('each character carries the next likeliest plate characters', async (t) => {
  const probs = new Float32Array(CLASSES);
  probs[index('A')] = 0.6;
  probs[index('7')] = 0.3;
  probs[0] = 0.1;
  const [only] = decodeCtc(probs, 1, CLASSES, alphabet);
  t.equal(only?.char, 'A');
  t.same(only?.alternatives[0], { char: '7', prob: probs[index('7')] });
});
