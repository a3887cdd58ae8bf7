import nacl from 'tweetnacl';
import { VaultError } from './errors.ts';

/**
 * Camera credentials entered on the hub travel sealed to this appliance's X25519 key
 * (ARCHITECTURE "Crypto"): the hub keeps only what it cannot open. tweetnacl has no
 * libsodium `crypto_box_seal`, so the construction is spelled out here:
 *
 *   sealed = base64( ephemeralPublicKey[32] || nonce[24] || box(message, nonce, devicePk, ephemeralSk) )
 *
 * A fresh ephemeral key pair per message makes the sender anonymous and the ephemeral secret
 * is dropped at once, so only the device secret key opens it. The hub side must produce
 * exactly these bytes (`sealToDevice` is the reference implementation).
 */
export interface DeviceKeyPair {
  /** base64, 32 bytes: sent with the claim as `public_key`. */
  publicKey: string;
  /** 32 bytes; stored only inside the vault. */
  secretKey: Uint8Array;
}

const HEADER = nacl.box.publicKeyLength + nacl.box.nonceLength;

/** Generated at claim, before the collector id (and so the vault) exists; kept in memory until stored. */
export function generateDeviceKeyPair(): DeviceKeyPair {
  const pair = nacl.box.keyPair();
  return { publicKey: Buffer.from(pair.publicKey).toString('base64'), secretKey: pair.secretKey };
}

export function sealToDevice(message: Uint8Array, devicePublicKeyBase64: string): string {
  const devicePk = new Uint8Array(Buffer.from(devicePublicKeyBase64, 'base64'));
  if (devicePk.length !== nacl.box.publicKeyLength) throw new Error('device public key must be 32 bytes');
  const ephemeral = nacl.box.keyPair();
  const nonce = nacl.randomBytes(nacl.box.nonceLength);
  const box = nacl.box(message, nonce, devicePk, ephemeral.secretKey);
  return Buffer.concat([ephemeral.publicKey, nonce, box]).toString('base64');
}

export function openSealed(sealedBase64: string, deviceSecretKey: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(Buffer.from(sealedBase64, 'base64'));
  if (bytes.length < HEADER + nacl.box.overheadLength) {
    throw new VaultError('sealed_unreadable', 'sealed credential is too short');
  }
  const ephemeralPk = bytes.subarray(0, nacl.box.publicKeyLength);
  const nonce = bytes.subarray(nacl.box.publicKeyLength, HEADER);
  const opened = nacl.box.open(bytes.subarray(HEADER), nonce, ephemeralPk, deviceSecretKey);
  if (!opened) throw new VaultError('sealed_unreadable', 'sealed credential does not open with this device key (sealed for another device, or altered)');
  return opened;
}
