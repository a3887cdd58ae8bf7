import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import TOML from '@iarna/toml';
import { cameraConfigSchema, type CameraConfig } from '../cameras/config.ts';
import type { ConfigTree } from '../config/merge.ts';
import { ApplianceError } from '../errors.ts';
import { readLocalLayer } from '../lifecycle/config-layers.ts';
import { writeFileAtomic } from '../vault/atomic-file.ts';
import { cameraCredentials, putCameraCredentials, type CameraCredentials } from '../vault/credentials.ts';
import type { HardwareIdentity } from '../vault/hardware-identity.ts';
import { secureDeleteFile } from '../vault/secure-delete.ts';
import { createVault, openVault, SETUP_VAULT_DIR, vaultFileOf, type Vault, type VaultContext } from '../vault/vault.ts';
import type { LocalCameraEntry } from './camera-form.ts';

/**
 * Cameras added on the setup page: the entry goes to the local TOML layer, the username,
 * password and token to a vault. Before the claim there is no collector id, so no real vault
 * yet: a setup vault in `<dataDir>/setup-vault/` (same PBKDF2 + secretbox, bound to this
 * hardware serial, collector id `unclaimed`) holds them, and the claim moves them into the
 * real vault and deletes it. docs/setup-page.md "Camera credentials".
 */
export { SETUP_VAULT_DIR };
export const UNCLAIMED_COLLECTOR_ID = 'unclaimed';

export interface SetupCamera {
  id: string;
  entry: ConfigTree;
  hasCredentials: boolean;
}

export interface SetupCameraStore {
  list(): Promise<SetupCamera[]>;
  /** Throws ApplianceError `conflict` when the id is taken. */
  add(entry: LocalCameraEntry, credentials: CameraCredentials): Promise<void>;
  /** Replace a camera's entry (same id); non-empty credentials replace the stored ones field by field. Throws ApplianceError `not_found` when unknown. */
  update(id: string, entry: LocalCameraEntry, credentials: CameraCredentials): Promise<void>;
  /** Remove the entry and its vaulted credentials. Throws ApplianceError `not_found` when unknown. */
  remove(id: string): Promise<void>;
  /** The credentials stored for a camera (an edit keeps those not retyped). */
  storedCredentials(id: string): Promise<CameraCredentials | undefined>;
  /** The camera as the runners would see it, credentials filled in; undefined when unknown. */
  resolve(id: string): Promise<CameraConfig | undefined>;
  /** At claim: every staged credential into the real vault, then the setup vault deleted. */
  moveCredentialsInto(vault: Vault): Promise<number>;
}

export interface FileCameraStoreOptions {
  dataDir: string;
  localConfigFile: string;
  identity: HardwareIdentity;
  now: () => Date;
}

export const setupVaultContext = (dataDir: string, identity: HardwareIdentity): VaultContext => ({
  dataDir: join(dataDir, SETUP_VAULT_DIR),
  identity,
});

/**
 * The setup vault if one exists (main.ts passes it to loadConfigWithCredentials while
 * unclaimed, so cameras added before the claim run with their credentials).
 */
export async function openSetupVault(dataDir: string, identity: HardwareIdentity): Promise<Vault | undefined> {
  try {
    return await openVault(setupVaultContext(dataDir, identity));
  } catch (error) {
    if (error instanceof ApplianceError && error.code === 'not_claimed') return undefined;
    throw error;
  }
}

const isTree = (v: unknown): v is ConfigTree => typeof v === 'object' && v !== null && !Array.isArray(v);
const CAMERA_ENTRY = /^camera:(.+)$/;
/** The vault entry name of a camera's credentials (vault/credentials.ts writes `camera:<id>`). */
const vaultEntryOf = (id: string): string => `camera:${id}`;

export function fileCameraStore(options: FileCameraStoreOptions): SetupCameraStore {
  const vaultCtx = setupVaultContext(options.dataDir, options.identity);
  // One writer at a time: two quick submits must not each write a TOML missing the other.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.catch(() => undefined).then(fn);
    queue = run;
    return run;
  };

  // Kept open: deriving the key is 100,000 PBKDF2 rounds, too slow to repeat per page view.
  let opened: Vault | undefined;
  async function stagingVault(create: boolean): Promise<Vault | undefined> {
    opened ??= await openSetupVault(options.dataDir, options.identity);
    if (opened || !create) return opened;
    await mkdir(vaultCtx.dataDir, { recursive: true, mode: 0o700 });
    opened = await createVault(vaultCtx, { collectorId: UNCLAIMED_COLLECTOR_ID, now: options.now() });
    return opened;
  }

  async function localCameras(): Promise<{ layer: ConfigTree; cameras: ConfigTree[] }> {
    const layer = (await readLocalLayer(options.localConfigFile)) ?? {};
    const raw = layer['cameras'];
    return { layer, cameras: Array.isArray(raw) ? raw.filter(isTree) : [] };
  }

  return {
    async list() {
      const { cameras } = await localCameras();
      const vault = await stagingVault(false);
      return cameras.map((entry) => {
        const id = typeof entry['id'] === 'string' ? entry['id'] : '?';
        return { id, entry, hasCredentials: vault !== undefined && cameraCredentials(vault, id) !== undefined };
      });
    },

    add: (entry, credentials) =>
      serial(async () => {
        const { layer, cameras } = await localCameras();
        if (cameras.some((c) => c['id'] === entry['id'])) throw new ApplianceError('conflict', `a camera with id ${String(entry['id'])} already exists`);
        // Credentials first: a TOML entry without its credentials would fail validation at start.
        if (Object.keys(credentials).length > 0) {
          const vault = await stagingVault(true);
          if (!vault) throw new ApplianceError('internal', 'the setup vault could not be created');
          await putCameraCredentials(vault, String(entry['id']), credentials);
        } else {
          // A secret left by an earlier camera of the same id must not be inherited.
          await (await stagingVault(false))?.remove(vaultEntryOf(String(entry['id'])));
        }
        const next = { ...layer, cameras: [...cameras, entry] };
        await writeFileAtomic(options.localConfigFile, TOML.stringify(next as TOML.JsonMap));
      }),

    update: (id, entry, credentials) =>
      serial(async () => {
        const { layer, cameras } = await localCameras();
        const index = cameras.findIndex((c) => c['id'] === id);
        if (index < 0) throw new ApplianceError('not_found', `no camera ${id}`);
        if (Object.keys(credentials).length > 0) {
          const vault = await stagingVault(true);
          if (!vault) throw new ApplianceError('internal', 'the setup vault could not be created');
          await putCameraCredentials(vault, id, { ...cameraCredentials(vault, id), ...credentials });
        }
        const next = { ...layer, cameras: cameras.map((c, i) => (i === index ? { ...entry, id } : c)) };
        await writeFileAtomic(options.localConfigFile, TOML.stringify(next as TOML.JsonMap));
      }),

    remove: (id) =>
      serial(async () => {
        const { layer, cameras } = await localCameras();
        if (!cameras.some((c) => c['id'] === id)) throw new ApplianceError('not_found', `no camera ${id}`);
        // The TOML first: a camera still configured without its secret would fail validation at start;
        // a secret briefly without its camera harms nothing.
        await writeFileAtomic(options.localConfigFile, TOML.stringify({ ...layer, cameras: cameras.filter((c) => c['id'] !== id) } as TOML.JsonMap));
        await (await stagingVault(false))?.remove(vaultEntryOf(id));
      }),

    async storedCredentials(id) {
      const vault = await stagingVault(false);
      return vault ? cameraCredentials(vault, id) : undefined;
    },

    async resolve(id) {
      const { cameras } = await localCameras();
      const entry = cameras.find((c) => c['id'] === id);
      if (!entry) return undefined;
      const vault = await stagingVault(false);
      const stored = vault ? cameraCredentials(vault, id) : undefined;
      const parsed = cameraConfigSchema.safeParse({ ...stored, ...entry });
      if (!parsed.success) throw new ApplianceError('bad_request', `camera ${id}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return parsed.data;
    },

    moveCredentialsInto: (target) =>
      serial(async () => {
        const vault = await stagingVault(false);
        if (!vault) return 0;
        let moved = 0;
        for (const name of vault.names()) {
          const id = CAMERA_ENTRY.exec(name)?.[1];
          const credentials = id !== undefined ? cameraCredentials(vault, id) : undefined;
          if (id === undefined || !credentials) continue;
          await putCameraCredentials(target, id, credentials);
          moved += 1;
        }
        await secureDeleteFile(vaultFileOf(vaultCtx.dataDir));
        opened = undefined;
        return moved;
      }),
  };
}
