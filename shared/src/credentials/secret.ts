import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 hex of a secret (API key, provisioning token). Stored instead of the secret: the
 * secrets carry 256 random bits, so a fast unsalted hash is enough (argon2id is for
 * human passwords only; docs/conventions.md "Boundaries").
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Constant-time string comparison. Both sides are hashed first so the compared buffers
 * always have 32 bytes: `timingSafeEqual` would throw on unequal lengths, and an early
 * length check would leak the length of the expected value.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}
