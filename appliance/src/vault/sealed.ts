import nacl from 'tweetnacl';
import { openSealedBox } from '@alpr/shared/protocol/sealed-box';
import { ApplianceError } from '../errors.ts';

/**
 * The device half of the sealed box (shared/src/protocol/sealed-box.ts holds the
 * construction both ends use): the X25519 key pair made at claim, and opening with it.
 */
export interface DeviceKeyPair {
  /** base64, 32 bytes: sent with the claim as `public_key`. */
  publicKey: string;
  /** 32 bytes; stored only inside the vault. */
  secretKey: Uint8Array;
}

/** Generated at claim, before the collector id (and so the vault) exists; kept in memory until stored. */
export function generateDeviceKeyPair(): DeviceKeyPair {
  const pair = nacl.box.keyPair();
  return { publicKey: Buffer.from(pair.publicKey).toString('base64'), secretKey: pair.secretKey };
}

export function openSealed(sealedBase64: string, deviceSecretKey: Uint8Array): Uint8Array {
  const opened = openSealedBox(sealedBase64, deviceSecretKey);
  if (opened.ok) return opened.message;
  throw new ApplianceError(
    'sealed_unreadable',
    opened.problem === 'too_short'
      ? 'sealed credential is too short'
      : 'sealed credential does not open with this device key (sealed for another device, or altered)',
  );
}
