import type { RandomSource } from './random.ts';
import { cryptoRandom, randomSymbols } from './random.ts';
import { HUMAN_CODE_ALPHABET, compactCode } from './alphabet.ts';

/**
 * Claim code `ALPR-XXXX-XXXX` (docs/collectors.md): 8 symbols from the 31-symbol alphabet,
 * 31^8 ≈ 8.5e11 codes, 8 × log2(31) ≈ 39.6 bits. About 30 bits would do; more is
 * harmless and the code is also single use, 48-hour and rate limited.
 */
export const CLAIM_CODE_PREFIX = 'ALPR';
export const CLAIM_CODE_SYMBOLS = 8;

const CANONICAL = /^ALPR-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}$/;
const TYPED = /^(?:ALPR)?([ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8})$/;

export function generateClaimCode(random: RandomSource = cryptoRandom): string {
  const symbols = randomSymbols(HUMAN_CODE_ALPHABET, CLAIM_CODE_SYMBOLS, random);
  return `${CLAIM_CODE_PREFIX}-${symbols.slice(0, 4)}-${symbols.slice(4)}`;
}

export function isCanonicalClaimCode(text: unknown): text is string {
  return typeof text === 'string' && CANONICAL.test(text);
}

/**
 * A typed claim code to its canonical form: case-insensitive, trimmed, hyphens and spaces
 * optional, and the `ALPR` prefix optional (8 symbols alone cannot be confused with a
 * prefixed code: L is not in the alphabet). Undefined for anything else, including
 * excluded characters such as O or 1, which are rejected rather than guessed.
 */
export function parseClaimCode(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const match = TYPED.exec(compactCode(text));
  const symbols = match?.[1];
  if (symbols === undefined) return undefined;
  return `${CLAIM_CODE_PREFIX}-${symbols.slice(0, 4)}-${symbols.slice(4)}`;
}
