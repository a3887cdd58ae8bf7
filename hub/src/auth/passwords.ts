import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

/**
 * Argon2id with OWASP's first recommended setting: 19 MiB memory, 2 passes, 1 lane
 * (~25 ms here). The parameters live in each hash string, so raising them later only
 * affects new hashes; verify reads whatever a hash says.
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

/** Password policy (our choice): 12 to 256 characters; long passphrases welcome. */
export const PASSWORD_MIN = 12;
/** Argon2 hashes any length, but a 1 MB "password" would be a cheap CPU attack. */
export const PASSWORD_MAX = 256;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    // A malformed stored hash is a failed login, not a 500.
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same Argon2 work as a real check when the email is unknown, so response time
 * does not reveal which emails have accounts (scripts/bench/login-timing.ts measures it).
 * Cached per process: same parameters as real hashes, random unguessable password.
 */
export async function verifyDummyPassword(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  await verifyPassword(await dummyHash, password);
  return false;
}

/** A one-time password printed by the CLI: 20 base64url characters (120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
