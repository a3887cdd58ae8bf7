import { createHash } from 'node:crypto';

/**
 * A detection id for payloads that carry none: a name-based UUID (version 5 layout over
 * SHA-256) of the fields that identify the read. Deterministic on purpose: parsing the same
 * payload twice yields the same id, so a re-delivered push is a duplicate, not a new read.
 */
export function derivedDetectionId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}
