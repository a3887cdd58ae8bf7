/**
 * Symbols for codes people read and type: A-Z and 2-9 without 0, O, I, L and 1
 * (docs/collectors.md), 23 letters + 8 digits = 31 symbols, log2(31) ≈ 4.954 bits each.
 */
export const HUMAN_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** Uppercased, with spaces and hyphens removed: what a person may add while typing a code. */
export function compactCode(text: string): string {
  return text.trim().toUpperCase().replace(/[\s-]/g, '');
}
