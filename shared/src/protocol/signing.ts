import type { SignedCommand } from './collector.ts';

/** Stable JSON: object keys sorted at every depth, so both ends sign/verify the same bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The bytes a command signature covers: every field but the signature itself. */
export function commandSigningBytes(command: Omit<SignedCommand, 'signature'>): Uint8Array {
  const { id, collector_id, type, payload, issued_at } = command;
  return new TextEncoder().encode(canonicalJson({ id, collector_id, type, payload, issued_at }));
}
