import type { RandomSource } from './random.ts';

/** A RandomSource that replays `bytes` in order (then wraps), so tests can see each draw. */
export function scriptedRandom(bytes: readonly number[]): RandomSource & { drawn: () => number } {
  let next = 0;
  const source = (size: number): Uint8Array => {
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i += 1) {
      out[i] = bytes[next % bytes.length] ?? 0;
      next += 1;
    }
    return out;
  };
  return Object.assign(source, { drawn: () => next });
}
