import { z } from 'zod';
import { openSealed } from './sealed.ts';
import { ApplianceError } from '../errors.ts';
import type { Vault } from './vault.ts';

/**
 * What the vault holds besides the key store: the device's X25519 secret key (opens
 * credentials sealed on the hub) and camera credentials entered on the local setup page.
 */
export const DEVICE_KEY_ENTRY = 'device_box_secret_key';
const cameraEntry = (cameraId: string): string => `camera:${cameraId}`;

export const cameraCredentialsSchema = z
  .object({
    username: z.string().min(1).max(100).optional(),
    password: z.string().max(200).optional(),
    token: z.string().min(1).max(500).optional(),
    /** A push camera's shared secret (runtime/ingest-admission.ts). */
    pushSecret: z.string().min(16).max(200).optional(),
  })
  .strict();
export type CameraCredentials = z.infer<typeof cameraCredentialsSchema>;

export const storeDeviceSecretKey = (vault: Vault, secretKey: Uint8Array): Promise<void> => vault.put(DEVICE_KEY_ENTRY, secretKey);

export function deviceSecretKey(vault: Vault): Uint8Array {
  const key = vault.get(DEVICE_KEY_ENTRY);
  if (!key) throw new ApplianceError('not_claimed', 'the vault holds no device key: re-claim the appliance');
  return key;
}

export const putCameraCredentials = (vault: Vault, cameraId: string, credentials: CameraCredentials): Promise<void> =>
  vault.put(cameraEntry(cameraId), Buffer.from(JSON.stringify(cameraCredentialsSchema.parse(credentials))));

export function cameraCredentials(vault: Vault, cameraId: string): CameraCredentials | undefined {
  const bytes = vault.get(cameraEntry(cameraId));
  return bytes === undefined ? undefined : parseCredentials(bytes, `vault entry for camera ${cameraId}`);
}

/** A sealed blob from the hub (`sealed_credentials` of a camera), opened with the device key. */
export function openSealedCredentials(sealed: string, secretKey: Uint8Array): CameraCredentials {
  return parseCredentials(openSealed(sealed, secretKey), 'sealed camera credentials');
}

function parseCredentials(bytes: Uint8Array, what: string): CameraCredentials {
  try {
    return cameraCredentialsSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch {
    throw new ApplianceError('corrupt', `${what}: not {username?, password?, token?}`);
  }
}
