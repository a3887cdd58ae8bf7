import nacl from 'tweetnacl';
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

/** Sign a command with the hub's Ed25519 secret key (tweetnacl, 64 bytes); base64 signature. */
export function signCommand(command: Omit<SignedCommand, 'signature'>, secretKey: Uint8Array): SignedCommand {
  const signature = nacl.sign.detached(commandSigningBytes(command), secretKey);
  return { ...command, signature: Buffer.from(signature).toString('base64') };
}

/** Verify a command against the hub's Ed25519 public key (base64, 32 bytes). Never throws. */
export function verifyCommandSignature(command: SignedCommand, hubPublicKeyBase64: string): boolean {
  try {
    const publicKey = Buffer.from(hubPublicKeyBase64, 'base64');
    const signature = Buffer.from(command.signature, 'base64');
    if (publicKey.length !== nacl.sign.publicKeyLength || signature.length !== nacl.sign.signatureLength) return false;
    return nacl.sign.detached.verify(commandSigningBytes(command), signature, publicKey);
  } catch {
    return false;
  }
}
