import { copyFile, rename } from 'node:fs/promises';
import { writeFileAtomic, syncDir } from '../vault/atomic-file.ts';
import { readOptionalText } from './load.ts';
import type { ConfigTree } from './merge.ts';
import { dirname } from 'node:path';

/**
 * The central (hub-pushed) configuration layer on disk, `central-config.json`, read by
 * config/load.ts. The file is the hub's `config` object plus its `config_version` as one more
 * top-level key, so version and content change in one atomic rename (the merged-config schema
 * drops the extra key). The layer it replaced is kept as `central-config.prev.json` for rollback.
 */
export const CONFIG_VERSION_KEY = 'config_version';

export const previousLayerFile = (file: string): string => file.replace(/(\.json)?$/, '.prev.json');

export interface CentralLayer {
  config: ConfigTree;
  configVersion: number;
}

const isTree = (value: unknown): value is ConfigTree => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function readCentralLayer(file: string): Promise<CentralLayer | undefined> {
  const text = await readOptionalText(file);
  if (text === undefined) return undefined;
  const parsed: unknown = JSON.parse(text);
  if (!isTree(parsed)) throw new Error(`${file}: not a JSON object`);
  const { [CONFIG_VERSION_KEY]: version, ...config } = parsed;
  // A layer written before versions were stored counts as the starting version.
  return { config, configVersion: typeof version === 'number' && Number.isInteger(version) ? version : 1 };
}

const serialize = (layer: CentralLayer): string => JSON.stringify({ ...layer.config, [CONFIG_VERSION_KEY]: layer.configVersion }, null, 2);

/** The first layer (at claim): nothing to keep. */
export async function writeInitialLayer(file: string, layer: CentralLayer): Promise<void> {
  await writeFileAtomic(file, serialize(layer));
}

/**
 * Replace the layer, keeping the current one as `.prev.json` (a copy, so a crash between the
 * two steps still leaves a current layer in place).
 */
export async function replaceCentralLayer(file: string, layer: CentralLayer): Promise<void> {
  try {
    await copyFile(file, previousLayerFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await writeFileAtomic(file, serialize(layer));
}

/** Put `.prev.json` back as the current layer; false when there is none. */
export async function restorePreviousLayer(file: string): Promise<boolean> {
  try {
    await rename(previousLayerFile(file), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  await syncDir(dirname(file));
  return true;
}
