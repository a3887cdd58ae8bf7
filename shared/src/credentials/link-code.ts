import type { RandomSource } from './random.ts';
import { cryptoRandom, randomSymbols } from './random.ts';
import { HUMAN_CODE_ALPHABET, compactCode } from './alphabet.ts';

/**
 * Messaging link code (docs/messaging.md): 8 symbols from the
 * claim-code alphabet (uppercase, no 0/O/I/L/1) because a person copies it from the web UI
 * into a chat. 31^8 ≈ 8.5e11, ≈ 39.6 bits, against a 10-minute lifetime and a rate limit.
 * Shown without separators, e.g. `K7M2QX9C`.
 */
export const LINK_CODE_LENGTH = 8;

const LINK_CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/;

export function generateLinkCode(random: RandomSource = cryptoRandom): string {
  return randomSymbols(HUMAN_CODE_ALPHABET, LINK_CODE_LENGTH, random);
}

/** Canonical (uppercase) code from what the user sent: case-insensitive, spaces and hyphens ignored. */
export function parseLinkCode(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const code = compactCode(text);
  return LINK_CODE.test(code) ? code : undefined;
}
