import { hkdfSync, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';

/**
 * TOTP secrets at rest: XSalsa20-Poly1305 (tweetnacl secretbox). The key is
 * HKDF-SHA256(hub TOTP master key, per-user 16-byte salt), so one leaked row key opens one
 * user only and the ciphertext of two users never shares a key. Stored: nonce || box.
 * Other secrets sealed this way (webhook signing secrets) pass their own HKDF `info`, so a
 * row key of one purpose never opens a box of another.
 */
export const SALT_BYTES = 16;

/** The HKDF info of TOTP row keys: unchanged, so TOTP secrets sealed before still open. */
export const TOTP_KEY_INFO = 'alpr-hub user totp key';

export interface SealedSecret {
  ciphertext: Buffer;
  salt: Buffer;
}

function rowKey(masterKey: Buffer, salt: Uint8Array, info: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', masterKey, salt, info, nacl.secretbox.keyLength));
}

export function sealSecret(masterKey: Buffer, secret: string, info: string = TOTP_KEY_INFO): SealedSecret {
  const salt = randomBytes(SALT_BYTES);
  const nonce = randomBytes(nacl.secretbox.nonceLength);
  const box = nacl.secretbox(new Uint8Array(Buffer.from(secret, 'utf8')), new Uint8Array(nonce), rowKey(masterKey, salt, info));
  return { ciphertext: Buffer.concat([nonce, Buffer.from(box)]), salt };
}

/** Null when the box does not open (wrong hub secret, tampered row). */
export function openSecret(masterKey: Buffer, sealed: { ciphertext: Uint8Array; salt: Uint8Array }, info: string = TOTP_KEY_INFO): string | null {
  const bytes = Buffer.from(sealed.ciphertext);
  if (bytes.length <= nacl.secretbox.nonceLength) return null;
  const nonce = new Uint8Array(bytes.subarray(0, nacl.secretbox.nonceLength));
  const box = new Uint8Array(bytes.subarray(nacl.secretbox.nonceLength));
  const opened = nacl.secretbox.open(box, nonce, rowKey(masterKey, sealed.salt, info));
  return opened ? Buffer.from(opened).toString('utf8') : null;
}
