import nacl from 'tweetnacl';

/**
 * Secrets the hub sends an appliance (a rotated API key, camera credentials entered on the
 * hub) travel sealed to the appliance's X25519 public key from its claim, so the hub keeps
 * only what it cannot open. tweetnacl has no libsodium `crypto_box_seal`, so the
 * construction is spelled out here, once, for both ends:
 *
 *   sealed = base64( ephemeralPublicKey[32] || nonce[24] || box(message, nonce, devicePk, ephemeralSk) )
 *
 * A fresh ephemeral key pair per message makes the sender anonymous, and its secret half is
 * dropped at once: only the device secret key opens the result, not even the hub that sealed it.
 */
const HEADER = nacl.box.publicKeyLength + nacl.box.nonceLength;

/** `devicePublicKey`: raw 32 bytes (the hub's column) or base64 (the claim's `public_key`). */
export function sealToDevice(message: Uint8Array, devicePublicKey: Uint8Array | string): string {
  const devicePk = new Uint8Array(typeof devicePublicKey === 'string' ? Buffer.from(devicePublicKey, 'base64') : devicePublicKey);
  if (devicePk.length !== nacl.box.publicKeyLength) throw new Error('device public key must be 32 bytes');
  const ephemeral = nacl.box.keyPair();
  const nonce = nacl.randomBytes(nacl.box.nonceLength);
  const box = nacl.box(message, nonce, devicePk, ephemeral.secretKey);
  return Buffer.concat([ephemeral.publicKey, nonce, box]).toString('base64');
}

export type OpenedBox = { ok: true; message: Uint8Array } | { ok: false; problem: 'too_short' | 'does_not_open' };

/** The device side: never throws, so each caller words the failure in its own error model. */
export function openSealedBox(sealedBase64: string, deviceSecretKey: Uint8Array): OpenedBox {
  const bytes = new Uint8Array(Buffer.from(sealedBase64, 'base64'));
  if (bytes.length < HEADER + nacl.box.overheadLength) return { ok: false, problem: 'too_short' };
  const ephemeralPk = bytes.subarray(0, nacl.box.publicKeyLength);
  const nonce = bytes.subarray(nacl.box.publicKeyLength, HEADER);
  const opened = nacl.box.open(bytes.subarray(HEADER), nonce, ephemeralPk, deviceSecretKey);
  return opened ? { ok: true, message: opened } : { ok: false, problem: 'does_not_open' };
}
