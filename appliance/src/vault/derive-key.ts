import { hkdfSync, pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** docs/protocol.md: PBKDF2, 100,000 iterations. SHA-256, 32-byte output. */
export const VAULT_KDF = { name: 'pbkdf2-sha256', iterations: 100_000, keyBytes: 32 } as const;

export interface KeyInputs {
  collectorId: string;
  hardwareSerial: string;
  /** ISO timestamp written once at claim. */
  installedAt: string;
  /** Random, stored beside the vault: makes the key unique even for two devices with equal inputs. */
  salt: Uint8Array;
}

/**
 * The PBKDF2 password is the three inputs (collector id, hardware serial, install time),
 * length-prefixed so that no two different triples can give the same string ("ab"+"c" vs "a"+"bc").
 */
export function keyMaterial(inputs: Omit<KeyInputs, 'salt'>): Buffer {
  const parts = [inputs.collectorId, inputs.hardwareSerial, inputs.installedAt].map((p) => Buffer.from(p, 'utf8'));
  return Buffer.concat(parts.flatMap((p) => [Buffer.from(`${p.length}:`), p]));
}

/** The vault master key, derived at run time and held in memory only (never written). */
export async function deriveMasterKey(inputs: KeyInputs): Promise<Uint8Array> {
  const key = await pbkdf2Async(keyMaterial(inputs), inputs.salt, VAULT_KDF.iterations, VAULT_KDF.keyBytes, 'sha256');
  return new Uint8Array(key);
}

/**
 * One subkey per purpose (HKDF-SHA256): the key store and each vault entry never share a
 * secretbox key, so a ciphertext moved from one slot to another does not open.
 */
export function subkey(master: Uint8Array, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', master, new Uint8Array(0), `alpr-vault:${purpose}`, 32));
}
