import { randomBytes } from 'node:crypto';

/** Source of uniformly random bytes. Production uses the CSPRNG; tests pass a scripted one. */
export type RandomSource = (size: number) => Uint8Array;

export const cryptoRandom: RandomSource = (size) => randomBytes(size);

/**
 * `length` symbols drawn uniformly from `alphabet` by rejection sampling: a byte is used
 * only when it is below the largest multiple of the alphabet size that fits in 256
 * (248 for 31 symbols), so `byte % size` has no modulo bias.
 */
export function randomSymbols(alphabet: string, length: number, random: RandomSource = cryptoRandom): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2..256 symbols');
  const limit = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    // Ask for a few spare bytes: with 31 symbols only 8 of 256 byte values are rejected.
    for (const byte of random(length - out.length + 4)) {
      if (byte >= limit) continue;
      out += alphabet[byte % size];
      if (out.length === length) break;
    }
  }
  return out;
}
