import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import type { ConfigTree } from '../config/merge.ts';
import { writeInitialLayer } from '../config/central-layer.ts';
import { secureDeleteFile } from '../vault/secure-delete.ts';
import { writeFileAtomic } from '../vault/atomic-file.ts';
import { storeDeviceSecretKey } from '../vault/credentials.ts';
import { ApplianceError } from '../errors.ts';
import type { DeviceKeyPair } from '../vault/sealed.ts';
import { createVault, openVault, vaultFileOf, type Vault, type VaultContext } from '../vault/vault.ts';

/**
 * API key storage in this order of preference (docs/appliance-lifecycle.md):
 * 1. an environment variable (ALPR_API_KEY, read by config/load.ts and passed in here);
 * 2. `credentials.enc`, mode 0600, sealed with the vault's key-store subkey, so the key is
 *    never on disk in clear and the file opens only on the device that was claimed;
 * 3. a system keyring: not used (an appliance image has no desktop keyring daemon).
 * The file also holds the collector id, hub URL and hub signing key: not secret, but sealed
 * in the same box they cannot be swapped for an attacker's hub key without detection.
 */
export const CREDENTIALS_FILE = 'credentials.enc';
const KEYSTORE_PURPOSE = 'keystore';

export interface KeystoreContext extends VaultContext {
  now: () => Date;
}

export interface EnrollmentToStore {
  collector_id: string;
  api_key: string;
  hub_url: string;
  hub_public_key: string;
  config: ConfigTree;
  config_version: number;
  /** The hub certificate pinned at claim (docs/security.md "Certificate pinning"); absent: CA-checked. */
  hub_certificate_sha256?: string;
}

const sealedSecretsSchema = z.object({
  collector_id: z.string(),
  api_key: z.string(),
  hub_url: z.string(),
  hub_public_key: z.string(),
  stored_at: z.string(),
  /**
   * Prefixes of keys this one replaced by rotation (newest last, at most 10). An
   * ALPR_API_KEY environment override holding one of them is stale: the file's key wins.
   */
  replaced_key_prefixes: z.array(z.string()).max(10).optional(),
  /**
   * The hub certificate's SHA-256, pinned at claim when it is not publicly trusted, and the
   * one a signed trust_hub_certificate command announced and the hub has not switched to
   * yet (docs/security.md "Rotating the hub certificate"). Sealed with the rest: a pin
   * swapped on disk would hand the uplink to another server.
   */
  hub_certificate_sha256: z.string().optional(),
  hub_certificate_next_sha256: z.string().optional(),
});
export type StoredEnrollment = z.infer<typeof sealedSecretsSchema>;

const fileSchema = z.object({ format: z.literal(1), sealed: z.string().min(1) });

export const credentialsFileOf = (dataDir: string): string => join(dataDir, CREDENTIALS_FILE);
export const centralConfigFileOf = (dataDir: string): string => join(dataDir, 'central-config.json');

/**
 * After a successful claim: a new vault (fresh salt, install time now), the device box
 * secret key inside it, the sealed credentials file, and the initial central layer.
 */
export async function storeEnrollment(
  ctx: KeystoreContext,
  enrollment: EnrollmentToStore,
  deviceKeys: DeviceKeyPair,
  centralConfigFile: string = centralConfigFileOf(ctx.dataDir),
): Promise<{ vault: Vault; keyPrefix: string }> {
  const vault = await createVault(ctx, { collectorId: enrollment.collector_id, now: ctx.now() });
  await storeDeviceSecretKey(vault, deviceKeys.secretKey);
  const secrets: StoredEnrollment = {
    collector_id: enrollment.collector_id,
    api_key: enrollment.api_key,
    hub_url: enrollment.hub_url,
    hub_public_key: enrollment.hub_public_key,
    stored_at: ctx.now().toISOString(),
    ...(enrollment.hub_certificate_sha256 ? { hub_certificate_sha256: enrollment.hub_certificate_sha256 } : {}),
  };
  await writeSecrets(ctx.dataDir, vault, secrets);
  await writeInitialLayer(centralConfigFile, { config: enrollment.config, configVersion: enrollment.config_version });
  return { vault, keyPrefix: apiKeyPrefix(enrollment.api_key) };
}

async function writeSecrets(dataDir: string, vault: Vault, secrets: StoredEnrollment): Promise<void> {
  const sealed = vault.seal(KEYSTORE_PURPOSE, Buffer.from(JSON.stringify(secrets)));
  // Atomic replace: a power cut leaves the previous key or the new one, never neither.
  await writeFileAtomic(credentialsFileOf(dataDir), JSON.stringify({ format: 1, sealed }));
}

/**
 * Key rotation (docs/appliance-lifecycle.md "Key rotation"): the sealed file now holds
 * `apiKey`; the key it held before is remembered by prefix only. Everything else of the
 * enrollment is kept. Used for the switch and for the switch back when the hub refuses
 * the new key.
 */
export async function replaceStoredApiKey(
  ctx: { dataDir: string; now: () => Date },
  vault: Vault,
  apiKey: string,
): Promise<{ previousPrefix: string; keyPrefix: string }> {
  const enrollment = openEnrollment(ctx.dataDir, await readCredentialsFile(ctx.dataDir), vault);
  const previousPrefix = apiKeyPrefix(enrollment.api_key);
  const keyPrefix = apiKeyPrefix(apiKey);
  const replaced = (enrollment.replaced_key_prefixes ?? []).filter((p) => p !== keyPrefix);
  if (previousPrefix !== keyPrefix) replaced.push(previousPrefix);
  await writeSecrets(ctx.dataDir, vault, {
    ...enrollment,
    api_key: apiKey,
    stored_at: ctx.now().toISOString(),
    replaced_key_prefixes: replaced.slice(-10),
  });
  return { previousPrefix, keyPrefix };
}

export interface StoredHubPins {
  current?: string;
  next?: string;
}

/** Rotation of the hub certificate pin: the sealed file now holds these pins, everything else kept. */
export async function replaceStoredHubPins(ctx: { dataDir: string }, vault: Vault, pins: StoredHubPins): Promise<void> {
  const {
    hub_certificate_sha256: _current,
    hub_certificate_next_sha256: _next,
    ...rest
  } = openEnrollment(ctx.dataDir, await readCredentialsFile(ctx.dataDir), vault);
  await writeSecrets(ctx.dataDir, vault, {
    ...rest,
    ...(pins.current ? { hub_certificate_sha256: pins.current } : {}),
    ...(pins.next ? { hub_certificate_next_sha256: pins.next } : {}),
  });
}

/** The stored enrollment and the open vault; ApplianceError('not_claimed') when not claimed. */
export async function loadEnrollment(ctx: VaultContext): Promise<{ enrollment: StoredEnrollment; vault: Vault }> {
  const text = await readCredentialsFile(ctx.dataDir);
  const vault = await openVault(ctx);
  return { enrollment: openEnrollment(ctx.dataDir, text, vault), vault };
}

async function readCredentialsFile(dataDir: string): Promise<string> {
  try {
    return await readFile(credentialsFileOf(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ApplianceError('not_claimed', `no ${CREDENTIALS_FILE}: not claimed`);
    throw error;
  }
}

function openEnrollment(dataDir: string, text: string, vault: Vault): StoredEnrollment {
  const file = fileSchema.safeParse(safeJson(text));
  if (!file.success) throw new ApplianceError('corrupt', `${credentialsFileOf(dataDir)} is not a credentials file`);
  const opened = vault.open(KEYSTORE_PURPOSE, file.data.sealed, CREDENTIALS_FILE);
  const enrollment = sealedSecretsSchema.safeParse(safeJson(Buffer.from(opened).toString('utf8')));
  if (!enrollment.success) throw new ApplianceError('corrupt', `${CREDENTIALS_FILE} holds no enrollment`);
  if (enrollment.data.collector_id !== vault.collectorId) {
    throw new ApplianceError('tampered', `${CREDENTIALS_FILE} belongs to another collector than the vault`);
  }
  return enrollment.data;
}

export type ApiKeySource = 'environment' | 'encrypted_file';

export interface LoadedApiKey {
  apiKey: string;
  source: ApiKeySource;
  keyPrefix: string;
  /** Set when ALPR_API_KEY was ignored because a rotation replaced it. */
  staleEnvironmentPrefix?: string;
}

/**
 * The key in order of preference (docs/appliance-lifecycle.md): the environment wins (an operator
 * override, e.g. during a manual rotation), else the sealed file. One exception: an environment key
 * that a rotation has since replaced (its prefix is in `replaced_key_prefixes`) is stale and would
 * be refused by the hub once the grace period ends, so the file's key is used and the caller warns.
 * undefined = not claimed. A file that exists but does not open (moved to other hardware,
 * tampered) throws: running unclaimed would hide that.
 */
export async function loadApiKey(ctx: VaultContext, environmentKey: string | undefined): Promise<LoadedApiKey | undefined> {
  let enrollment: StoredEnrollment | undefined;
  try {
    ({ enrollment } = await loadEnrollment(ctx));
  } catch (error) {
    if (!(error instanceof ApplianceError && error.code === 'not_claimed')) {
      if (environmentKey) return { apiKey: environmentKey, source: 'environment', keyPrefix: apiKeyPrefix(environmentKey) };
      throw error;
    }
  }
  if (environmentKey) {
    const envPrefix = apiKeyPrefix(environmentKey);
    const stale = enrollment !== undefined && environmentKey !== enrollment.api_key && (enrollment.replaced_key_prefixes ?? []).includes(envPrefix);
    if (!stale || enrollment === undefined) return { apiKey: environmentKey, source: 'environment', keyPrefix: envPrefix };
    return { apiKey: enrollment.api_key, source: 'encrypted_file', keyPrefix: apiKeyPrefix(enrollment.api_key), staleEnvironmentPrefix: envPrefix };
  }
  if (enrollment === undefined) return undefined;
  return { apiKey: enrollment.api_key, source: 'encrypted_file', keyPrefix: apiKeyPrefix(enrollment.api_key) };
}

/** Forget the enrollment: overwrite and delete the sealed key file and the vault. */
export async function clearEnrollment(ctx: { dataDir: string }): Promise<void> {
  await secureDeleteFile(credentialsFileOf(ctx.dataDir));
  await secureDeleteFile(vaultFileOf(ctx.dataDir));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
