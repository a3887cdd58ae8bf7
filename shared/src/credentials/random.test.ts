import t from 'tap';
import { cryptoRandom, randomSymbols } from './random.ts';
import { scriptedRandom } from './scripted.test-helper.ts';

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

t.test('rejection sampling skips the biased byte range', async (t) => {
  // 31 symbols: bytes 248..255 would give 0..7 a ninth chance each, so they are skipped.
  const random = scriptedRandom([248, 255, 0, 250, 30, 31, 247, 62]);
  t.equal(randomSymbols(ALPHABET, 5, random), 'A9A9A', 'bytes 248, 255, 250 rejected; others reduced mod 31');
});

t.test('every accepted byte value maps to exactly 8 of each symbol', async (t) => {
  const everyByte = Array.from({ length: 256 }, (_, i) => i);
  const symbols = randomSymbols(ALPHABET, 248, scriptedRandom(everyByte));
  const counts = new Map<string, number>();
  for (const ch of symbols) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  t.equal(counts.size, 31);
  for (const [ch, n] of counts) t.equal(n, 8, ch);
});

t.test('alphabet sizes outside 2..256 are refused', async (t) => {
  t.throws(() => randomSymbols('A', 4), RangeError);
  t.throws(() => randomSymbols('x'.repeat(257), 4), RangeError);
  t.equal(randomSymbols('01', 0), '', 'zero length');
});

t.test('cryptoRandom returns the requested number of bytes', async (t) => {
  t.equal(cryptoRandom(32).length, 32);
  t.not(Buffer.from(cryptoRandom(32)).toString('hex'), Buffer.from(cryptoRandom(32)).toString('hex'));
});
