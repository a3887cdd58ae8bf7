import nacl from 'tweetnacl';

/**
 * tweetnacl secretbox (XSalsa20-Poly1305) with a random 24-byte nonce, stored as
 * base64(nonce || box). 24 random bytes make a nonce collision negligible for the few
 * thousand writes a vault sees in its life.
 */
export function sealBox(key: Uint8Array, plaintext: Uint8Array): string {
  const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
  const box = nacl.secretbox(plaintext, nonce, key);
  return Buffer.concat([nonce, box]).toString('base64');
}

/** undefined when the box does not authenticate under this key (wrong key or changed bytes). */
export function openBox(key: Uint8Array, sealed: string): Uint8Array | undefined {
  const bytes = new Uint8Array(Buffer.from(sealed, 'base64'));
  if (bytes.length < nacl.secretbox.nonceLength + nacl.secretbox.overheadLength) return undefined;
  const nonce = bytes.subarray(0, nacl.secretbox.nonceLength);
  const box = bytes.subarray(nacl.secretbox.nonceLength);
  return nacl.secretbox.open(box, nonce, key) ?? undefined;
}
