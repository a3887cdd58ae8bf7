import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file.ts';
import { deriveMasterKey, subkey, VAULT_KDF } from './derive-key.ts';
import { ApplianceError } from '../errors.ts';
import type { HardwareIdentity } from './hardware-identity.ts';
import { openBox, sealBox } from './secretbox.ts';

/**
 * The credential vault (docs/protocol.md): secrets sealed with tweetnacl
 * secretbox under a key derived at run time by PBKDF2 from collector id + hardware serial +
 * install timestamp. vault.json holds the salt, the install time and the collector id (none
 * secret), a check value and the sealed entries; the derived key exists only in memory.
 * docs/appliance-lifecycle.md, "Vault".
 */
export const VAULT_FILE = 'vault.json';
/**
 * The folder (under the data dir) of the setup vault: camera credentials typed on the setup
 * page before the claim (setup/camera-store.ts). Named here, beside the vault file, so the
 * wipe (lifecycle/wipe.ts) can delete it without depending on the setup pages.
 */
export const SETUP_VAULT_DIR = 'setup-vault';
const CHECK_PLAINTEXT = 'alpr-vault-check-v1';

const vaultFileSchema = z.object({
  format: z.literal(1),
  kdf: z.object({ name: z.literal(VAULT_KDF.name), iterations: z.number().int().min(VAULT_KDF.iterations) }),
  salt: z.string().min(1),
  installed_at: z.string().min(1),
  collector_id: z.string().min(1),
  check: z.string().min(1),
  entries: z.record(z.string(), z.string()),
});
type VaultFile = z.infer<typeof vaultFileSchema>;

export interface VaultContext {
  dataDir: string;
  identity: HardwareIdentity;
}

export interface Vault {
  readonly collectorId: string;
  readonly installedAt: string;
  /** Seal bytes under this vault's subkey for `purpose` (the key store uses its own). */
  seal(purpose: string, plaintext: Uint8Array): string;
  /** Throws ApplianceError('tampered') when the box does not authenticate. */
  open(purpose: string, sealed: string, what: string): Uint8Array;
  get(name: string): Uint8Array | undefined;
  put(name: string, value: Uint8Array): Promise<void>;
  remove(name: string): Promise<void>;
  names(): string[];
}

export const vaultFileOf = (dataDir: string): string => join(dataDir, VAULT_FILE);

/** At claim: a fresh salt and install time; replaces any earlier vault (its key is gone with it). */
export async function createVault(ctx: VaultContext, input: { collectorId: string; now: Date }): Promise<Vault> {
  const salt = new Uint8Array(randomBytes(16));
  const installedAt = input.now.toISOString();
  const master = await deriveMasterKey({ collectorId: input.collectorId, hardwareSerial: await ctx.identity(), installedAt, salt });
  const file: VaultFile = {
    format: 1,
    kdf: { name: VAULT_KDF.name, iterations: VAULT_KDF.iterations },
    salt: Buffer.from(salt).toString('base64'),
    installed_at: installedAt,
    collector_id: input.collectorId,
    check: sealBox(subkey(master, 'check'), Buffer.from(CHECK_PLAINTEXT)),
    entries: {},
  };
  await writeFileAtomic(vaultFileOf(ctx.dataDir), JSON.stringify(file, null, 2));
  return vaultOver(ctx, file, master);
}

export async function openVault(ctx: VaultContext): Promise<Vault> {
  const path = vaultFileOf(ctx.dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ApplianceError('not_claimed', `no vault at ${path}: not claimed`);
    throw error;
  }
  let file: VaultFile;
  try {
    file = vaultFileSchema.parse(JSON.parse(text));
  } catch {
    throw new ApplianceError('corrupt', `${path} is not a vault file`);
  }
  const master = await deriveMasterKey({
    collectorId: file.collector_id,
    hardwareSerial: await ctx.identity(),
    installedAt: file.installed_at,
    salt: new Uint8Array(Buffer.from(file.salt, 'base64')),
  });
  const check = openBox(subkey(master, 'check'), file.check);
  if (!check || Buffer.from(check).toString() !== CHECK_PLAINTEXT) {
    throw new ApplianceError(
      'device_mismatch',
      'the vault does not open on this device: hardware serial, collector id or install time differ from when it was created (copied from another device, or edited); re-claim the appliance',
    );
  }
  return vaultOver(ctx, file, master);
}

function vaultOver(ctx: VaultContext, file: VaultFile, master: Uint8Array): Vault {
  const entries = new Map(Object.entries(file.entries));
  // Writes are serialized: two concurrent puts must not each write a file missing the other.
  let writing: Promise<void> = Promise.resolve();
  const persist = (): Promise<void> => {
    const snapshot: VaultFile = { ...file, entries: Object.fromEntries(entries) };
    writing = writing.catch(() => undefined).then(() => writeFileAtomic(vaultFileOf(ctx.dataDir), JSON.stringify(snapshot, null, 2)));
    return writing;
  };
  const seal = (purpose: string, plaintext: Uint8Array): string => sealBox(subkey(master, purpose), plaintext);
  const open = (purpose: string, sealed: string, what: string): Uint8Array => {
    const opened = openBox(subkey(master, purpose), sealed);
    if (!opened) throw new ApplianceError('tampered', `${what} does not authenticate: the file was altered or is corrupt`);
    return opened;
  };
  return {
    collectorId: file.collector_id,
    installedAt: file.installed_at,
    seal,
    open,
    get(name) {
      const sealed = entries.get(name);
      return sealed === undefined ? undefined : open(`entry:${name}`, sealed, `vault entry "${name}"`);
    },
    put(name, value) {
      entries.set(name, seal(`entry:${name}`, value));
      return persist();
    },
    remove(name) {
      entries.delete(name);
      return persist();
    },
    names: () => [...entries.keys()],
  };
}
