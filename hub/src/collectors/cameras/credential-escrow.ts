import nacl from 'tweetnacl';
import { z } from 'zod';
import { openSealedBox, sealToDevice } from '@alpr/shared/protocol/sealed-box';
import { authKeys } from '../../platform/secrets/hub-secret.ts';
import type { HubConfig } from '../../platform/config/hub-config.ts';

/**
 * Camera credentials entered on the hub (docs/cameras-central.md "Credentials"). The hub
 * keeps them only sealed to its escrow key, an X25519 key derived from the hub secret
 * (platform/secrets/hub-secret.ts: `HUB_SESSION_SECRET` or the `hub-secret` file, never the database).
 * A database copy alone opens nothing. The escrow exists so a replacement box can be sent
 * the same credentials sealed to its own key without anyone typing them again; they are
 * opened in memory only for that re-sealing, never logged and never returned by any route.
 */
export const credentialsSchema = z
  .object({
    username: z.string().min(1).max(100).optional(),
    password: z.string().max(200).optional(),
    token: z.string().min(1).max(500).optional(),
  })
  .strict();
export type CameraSecrets = z.infer<typeof credentialsSchema>;

function escrowKeyPair(config: HubConfig): nacl.BoxKeyPair {
  return nacl.box.keyPair.fromSecretKey(new Uint8Array(authKeys(config).credentialEscrowKey));
}

const encode = (secrets: CameraSecrets): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify(credentialsSchema.parse(secrets)), 'utf8'));

/** Seal for storage in `cameras.escrowed_credentials`. */
export function escrowCredentials(config: HubConfig, secrets: CameraSecrets): Buffer {
  return Buffer.from(sealToDevice(encode(secrets), escrowKeyPair(config).publicKey), 'base64');
}

/** Thrown when the escrow does not open: the hub secret changed since the credentials were entered. */
export class EscrowUnreadable extends Error {}

export function openEscrow(config: HubConfig, escrowed: Uint8Array): CameraSecrets {
  const opened = openSealedBox(Buffer.from(escrowed).toString('base64'), escrowKeyPair(config).secretKey);
  if (!opened.ok) throw new EscrowUnreadable('camera credentials do not open with this hub secret; enter them again');
  return credentialsSchema.parse(JSON.parse(Buffer.from(opened.message).toString('utf8')));
}

/** The `sealed_credentials` of a camera entry pushed to one device: only its secret key opens it. */
export function sealForDevice(config: HubConfig, escrowed: Uint8Array, devicePublicKey: Uint8Array): string {
  return sealToDevice(encode(openEscrow(config, escrowed)), devicePublicKey);
}

/**
 * One secret string of a collector's configuration (collectors/config-secrets.ts), sealed to
 * the same escrow key as camera credentials: base64, for a `$escrowed` marker.
 */
export function escrowText(config: HubConfig, text: string): string {
  return sealToDevice(new Uint8Array(Buffer.from(text, 'utf8')), escrowKeyPair(config).publicKey);
}

/** An `$escrowed` string re-sealed to one device; EscrowUnreadable when the hub secret changed. */
export function sealEscrowedTextForDevice(config: HubConfig, escrowed: string, devicePublicKey: Uint8Array, what: string): string {
  const opened = openSealedBox(escrowed, escrowKeyPair(config).secretKey);
  if (!opened.ok) throw new EscrowUnreadable(`${what} does not open with this hub secret; set it again in the collector's configuration`);
  return sealToDevice(opened.message, devicePublicKey);
}
