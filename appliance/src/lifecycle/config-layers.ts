import TOML from '@iarna/toml';
import { readCentralLayer } from '../config/central-layer.ts';
import { readOptionalText, resolveConfig, type ApplianceEnvironment } from '../config/load.ts';
import { mergeLayers, type ConfigTree } from '../config/merge.ts';
import type { ApplianceConfig } from '../config/schema.ts';
import { openSealedMarkers } from '@alpr/shared/protocol/config-secrets';
import { ApplianceError } from '../errors.ts';
import { cameraCredentials, deviceSecretKey, openSealedCredentials } from '../vault/credentials.ts';
import { openSealed } from '../vault/sealed.ts';
import type { Vault } from '../vault/vault.ts';

/**
 * The merged configuration with camera credentials filled in from where they are kept
 * encrypted: `sealed_credentials` (sealed on the hub to this device's key, stored as-is in
 * the central layer) and vault entries (entered on the local setup page). Credentials are
 * only ever in clear in memory. Precedence per field: clear values in a config layer (an
 * explicit local override) > sealed from the hub > the vault.
 */
export const SEALED_CREDENTIALS_KEY = 'sealed_credentials';

const isTree = (value: unknown): value is ConfigTree => typeof value === 'object' && value !== null && !Array.isArray(value);

export function injectCredentials(merged: ConfigTree, vault: Vault | undefined): ConfigTree {
  const cameras = merged['cameras'];
  if (!Array.isArray(cameras)) return merged;
  return {
    ...merged,
    cameras: cameras.map((camera: unknown) => {
      if (!isTree(camera)) return camera;
      const { [SEALED_CREDENTIALS_KEY]: sealed, ...clear } = camera;
      if (!vault) return clear;
      const id = typeof clear['id'] === 'string' ? clear['id'] : undefined;
      const stored = id !== undefined ? cameraCredentials(vault, id) : undefined;
      const fromHub = typeof sealed === 'string' ? openSealedCredentials(sealed, deviceSecretKey(vault)) : undefined;
      return { ...stored, ...fromHub, ...clear };
    }),
  };
}

/**
 * Secrets the hub sealed to this device inside its configuration (`{ "$sealed": ... }` in
 * place of an MQTT password, a camera password, a push secret: shared/src/protocol/
 * config-secrets.ts) opened in memory; the layer on disk keeps them sealed.
 */
export function openConfigSecrets(merged: ConfigTree, vault: Vault | undefined): ConfigTree {
  return openSealedMarkers(merged, (sealed, path) => {
    if (!vault) throw new ApplianceError('not_claimed', `${path} is sealed to this device's key, and it has no vault: claim it again`);
    try {
      return Buffer.from(openSealed(sealed, deviceSecretKey(vault))).toString('utf8');
    } catch (error) {
      if (error instanceof ApplianceError) throw new ApplianceError(error.code, `${path}: ${error.message}`);
      throw error;
    }
  });
}

/** Pure apart from the vault reads: merge, open sealed secrets, fill credentials, validate (throws ApplianceError: invalid_config or a vault code). */
export function resolveWithCredentials(central: ConfigTree | undefined, local: ConfigTree | undefined, vault: Vault | undefined): ApplianceConfig {
  return resolveConfig(injectCredentials(openConfigSecrets(mergeLayers({}, central, local), vault), vault), undefined);
}

export async function readLocalLayer(file: string): Promise<ConfigTree | undefined> {
  const text = await readOptionalText(file);
  if (text === undefined) return undefined;
  return TOML.parse(text) as ConfigTree;
}

/**
 * What main.ts loads at start once claimed (instead of loadApplianceConfig, which knows
 * nothing of the vault): the configuration and the central layer's config_version.
 */
export async function loadConfigWithCredentials(
  environment: Pick<ApplianceEnvironment, 'centralConfigFile' | 'localConfigFile'>,
  vault: Vault | undefined,
): Promise<{ config: ApplianceConfig; configVersion: number }> {
  const central = await readCentralLayer(environment.centralConfigFile);
  const local = await readLocalLayer(environment.localConfigFile);
  return { config: resolveWithCredentials(central?.config, local, vault), configVersion: central?.configVersion ?? 0 };
}
