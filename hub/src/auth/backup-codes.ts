import { createHash, randomBytes } from 'node:crypto';
import { BACKUP_CODE_COUNT } from './constants.ts';

/** `XXXX-XXXX`, uppercase hex (docs/auth.md): 32 random bits each. */
export function generateBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    const hex = randomBytes(4).toString('hex').toUpperCase();
    codes.add(`${hex.slice(0, 4)}-${hex.slice(4)}`);
  }
  return [...codes];
}

/** Case-insensitive, hyphen optional, surrounding blanks ignored; null if not 8 hex digits. */
export function normalizeBackupCode(input: string): string | null {
  const compact = input.trim().replace(/-/g, '').toUpperCase();
  return /^[0-9A-F]{8}$/.test(compact) ? compact : null;
}

/** Stored form: SHA-256 hex of the normalized 8 characters (no hyphen, uppercase). */
export function hashBackupCode(normalized: string): string {
  return createHash('sha256').update(normalized, 'utf8').digest('hex');
}
