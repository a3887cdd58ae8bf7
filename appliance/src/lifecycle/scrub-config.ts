import { SECRET_KEY_NAME } from '@alpr/shared/protocol/config-secrets';
import { cameraConfigSchema } from '../cameras/config.ts';
import type { ConfigTree } from '../config/merge.ts';
import { cameraCredentialsSchema } from '../vault/credentials.ts';
import { SEALED_CREDENTIALS_KEY } from './config-layers.ts';

/**
 * Pure: the local TOML layer as a wipe leaves it (docs/appliance-lifecycle.md "Wipe").
 * The installation settings stay, so the device comes back up on its LAN; every secret
 * goes, because the TOML is the one file the wipe keeps and an installer may have typed
 * camera passwords into it in clear.
 *
 * - Camera credentials: every field of the vault's credential record (`username`,
 *   `password`, `token`, `pushSecret`: derived from `cameraCredentialsSchema`, so a field
 *   added there is scrubbed here too) and `sealed_credentials`. The username goes as well:
 *   it is half of a login, and the vault keeps it with the password for that reason.
 * - Anywhere else in the tree, a key whose name says secret (password, secret, token,
 *   API key, private key, credential), and the user:password part of a URL.
 * - A camera that lost a credential, or that is no longer a whole camera on its own, moves
 *   from `cameras` to `cameras_without_credentials`. "On its own" because the wipe also
 *   deletes what completed it: the vault (a vendor_a pull or vendor_b camera added on the
 *   setup page has its login there) and the central layer (a local entry may only override
 *   a hub camera's fields, config/merge.ts mergeCameraLists). Kept for a person to add again
 *   on the setup page, but out of the configuration, which would otherwise refuse to start
 *   ("vendor_b needs a token") and keep the setup page down. Nor does a camera keep polling
 *   a device with half a login, which could lock the camera's account.
 */
export const PARKED_CAMERAS_KEY = 'cameras_without_credentials';

export const CAMERA_SECRET_KEYS: readonly string[] = [...Object.keys(cameraCredentialsSchema.shape), SEALED_CREDENTIALS_KEY];

/** The names the hub seals in a pushed configuration (`tokenHeader`, a setting, is not one). */
export const isSecretKey = (key: string): boolean => CAMERA_SECRET_KEYS.includes(key) || SECRET_KEY_NAME.test(key);

export interface ScrubResult {
  tree: ConfigTree;
  /** Where a secret was, e.g. `cameras[gate-1].password`, `hub_url (user:password)`: names, never values. */
  removed: string[];
  /** Ids of the cameras moved to `cameras_without_credentials`. */
  parked: string[];
}

const isTree = (value: unknown): value is ConfigTree => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** `https://user:pw@host/x` -> `https://host/x`; anything else unchanged. */
function withoutUserInfo(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) return undefined;
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return undefined;
  }
}

function scrubValue(value: unknown, path: string, removed: string[]): unknown {
  if (typeof value === 'string') {
    const clean = withoutUserInfo(value);
    if (clean === undefined) return value;
    removed.push(`${path} (user:password)`);
    return clean;
  }
  if (Array.isArray(value)) return value.map((item, i) => scrubValue(item, `${path}[${i}]`, removed));
  if (!isTree(value)) return value;
  const out: ConfigTree = {};
  for (const [key, inner] of Object.entries(value)) {
    // Own keys only, as mergeLayers: a TOML key named __proto__ must not reach the prototype.
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const at = path === '' ? key : `${path}.${key}`;
    if (isSecretKey(key)) {
      removed.push(at);
      continue;
    }
    out[key] = scrubValue(inner, at, removed);
  }
  return out;
}

/** The camera's own validation, with no vault and no central layer to fill it in. */
const isWholeCamera = (camera: ConfigTree): boolean => cameraConfigSchema.safeParse(camera).success;

export function scrubLocalConfig(tree: ConfigTree): ScrubResult {
  const removed: string[] = [];
  const parked: string[] = [];
  const { cameras, [PARKED_CAMERAS_KEY]: parkedBefore, ...rest } = tree;
  const out = scrubValue(rest, '', removed) as ConfigTree;
  const keep: unknown[] = [];
  const park: unknown[] = Array.isArray(parkedBefore) ? (scrubValue(parkedBefore, PARKED_CAMERAS_KEY, removed) as unknown[]) : [];
  if (Array.isArray(cameras)) {
    cameras.forEach((camera: unknown, index) => {
      if (!isTree(camera)) return keep.push(camera);
      const name = typeof camera['id'] === 'string' ? camera['id'] : String(index);
      const before = removed.length;
      const clean = scrubValue(camera, `cameras[${name}]`, removed) as ConfigTree;
      if (removed.length > before || !isWholeCamera(clean)) {
        parked.push(name);
        return park.push(clean);
      }
      return keep.push(clean);
    });
  } else if (cameras !== undefined) {
    out['cameras'] = scrubValue(cameras, 'cameras', removed);
  }
  if (Array.isArray(cameras)) out['cameras'] = keep;
  if (park.length > 0) out[PARKED_CAMERAS_KEY] = park;
  return { tree: out, removed, parked };
}
