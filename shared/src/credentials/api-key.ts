import type { RandomSource } from './random.ts';
import { cryptoRandom } from './random.ts';
import { TOKEN_BODY_LENGTH, generatePrefixedToken, isWellFormedPrefixedToken } from './prefixed-token.ts';

/**
 * Collector API key (docs/collectors.md): `alpr_` + 32 CSPRNG bytes as base64url without
 * padding. About 49 characters was the first estimate; the exact length is 5 + 43 = 48.
 */
export const API_KEY_PREFIX = 'alpr_';
export const API_KEY_LENGTH = API_KEY_PREFIX.length + TOKEN_BODY_LENGTH;
/** `key_prefix` (max 10): `alpr_` plus 5 characters, enough to tell keys apart in a list. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 10;

export function generateApiKey(random: RandomSource = cryptoRandom): string {
  return generatePrefixedToken(API_KEY_PREFIX, random);
}

/** Key validation, step 1: prefix and length, checked before any hashing or lookup (docs/security.md). */
export function isWellFormedApiKey(text: unknown): text is string {
  return isWellFormedPrefixedToken(API_KEY_PREFIX, text);
}

/** The first 10 characters, stored beside the hash for display. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH);
}
