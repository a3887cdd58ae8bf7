import type { RandomSource } from './random.ts';
import { cryptoRandom } from './random.ts';

/** 32 random bytes (256 bits): base64url without padding is 43 characters. */
export const TOKEN_RANDOM_BYTES = 32;
export const TOKEN_BODY_LENGTH = 43;

const BASE64URL_BODY = /^[A-Za-z0-9_-]{43}$/;

/** `prefix` + base64url(32 random bytes), no padding. */
export function generatePrefixedToken(prefix: string, random: RandomSource = cryptoRandom): string {
  const bytes = random(TOKEN_RANDOM_BYTES);
  if (bytes.length !== TOKEN_RANDOM_BYTES) throw new RangeError('random source returned the wrong number of bytes');
  return prefix + Buffer.from(bytes).toString('base64url');
}

/**
 * Prefix, exact length, base64url alphabet, and canonical encoding: 43 characters hold 258
 * bits, so the last character's two spare bits must be zero (only 16 symbols can end a
 * token). Every token we issued passes; a retyped or tampered one fails before any lookup.
 */
export function isWellFormedPrefixedToken(prefix: string, text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== prefix.length + TOKEN_BODY_LENGTH) return false;
  if (!text.startsWith(prefix)) return false;
  const body = text.slice(prefix.length);
  if (!BASE64URL_BODY.test(body)) return false;
  return Buffer.from(body, 'base64url').toString('base64url') === body;
}
