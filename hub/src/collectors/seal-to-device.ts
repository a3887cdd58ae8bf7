import nacl from 'tweetnacl';

/**
 * Seals a secret to a collector's X25519 public key (sent with its claim), so only that
 * device can open it. The exact construction the appliance opens (appliance/src/vault/
 * sealed.ts, `openSealed`):
 *
 *   base64( ephemeralPublicKey[32] || nonce[24] || box(message, nonce, devicePk, ephemeralSk) )
 *
 * A fresh ephemeral key pair per message; its secret half is dropped here, so the hub itself
 * cannot open what it sealed.
 */
export function sealToDevice(message: Uint8Array, devicePublicKey: Uint8Array): string {
  if (devicePublicKey.length !== nacl.box.publicKeyLength) throw new Error('device public key must be 32 bytes');
  const ephemeral = nacl.box.keyPair();
  const nonce = nacl.randomBytes(nacl.box.nonceLength);
  const box = nacl.box(message, nonce, new Uint8Array(devicePublicKey), ephemeral.secretKey);
  return Buffer.concat([ephemeral.publicKey, nonce, box]).toString('base64');
}
