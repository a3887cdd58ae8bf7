import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplianceError } from '../errors.ts';
import { DEFAULT_LOG_MAX_BYTES, logFileOf } from '../log-file.ts';
import TOML from '@iarna/toml';
import { mergeLayers, type ConfigTree } from './merge.ts';
import { applianceConfigSchema, type ApplianceConfig } from './schema.ts';

/**
 * Where the appliance reads its configuration. The only module that reads process.env:
 * main.ts passes `process.env` in and gets everything it needs back.
 */
export interface ApplianceEnvironment {
  dataDir: string;
  /** Local overrides (TOML), the last layer. */
  localConfigFile: string;
  /** Central (hub-pushed) configuration, written by the command runner (JSON). */
  centralConfigFile: string;
  /** Preferred key storage (environment variable first). */
  apiKey?: string;
  /**
   * `ALPR_LOG_TO=file` (the device's unit sets it): logs go to `logs/appliance.log` under
   * the data folder, capped (`ALPR_LOG_MAX_BYTES`, two generations), so a wipe removes them.
   * Unset or `stdout`: standard output (development; under systemd that would be journald).
   */
  logFile?: { path: string; maxBytes: number };
}

export function readEnvironment(env: Readonly<Record<string, string | undefined>>): ApplianceEnvironment {
  const dataDir = env.ALPR_DATA_DIR ?? '.data/appliance';
  return {
    dataDir,
    localConfigFile: env.ALPR_CONFIG ?? join(dataDir, 'appliance.toml'),
    centralConfigFile: join(dataDir, 'central-config.json'),
    ...(env.ALPR_API_KEY ? { apiKey: env.ALPR_API_KEY } : {}),
    ...(logDestination(env) === 'file' ? { logFile: { path: logFileOf(dataDir), maxBytes: logMaxBytes(env) } } : {}),
  };
}

function logDestination(env: Readonly<Record<string, string | undefined>>): 'stdout' | 'file' {
  const value = env.ALPR_LOG_TO ?? 'stdout';
  if (value !== 'stdout' && value !== 'file') throw new ApplianceError('invalid_config', `ALPR_LOG_TO must be "stdout" or "file", not "${value}"`);
  return value;
}

function logMaxBytes(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.ALPR_LOG_MAX_BYTES;
  if (raw === undefined) return DEFAULT_LOG_MAX_BYTES;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  // Below 64 KiB a single burst of errors would rotate away what explains it.
  if (!(n >= 64 * 1024)) throw new ApplianceError('invalid_config', `ALPR_LOG_MAX_BYTES must be a whole number of bytes, at least 65536, not "${raw}"`);
  return n;
}

/** A file's text, or undefined when it does not exist (a layer that is simply absent). */
export async function readOptionalText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readLayer(file: string, parse: (text: string) => ConfigTree): Promise<ConfigTree | undefined> {
  let text: string | undefined;
  try {
    text = await readOptionalText(file);
  } catch (error) {
    throw new ApplianceError('invalid_config', `${file}: ${(error as Error).message}`);
  }
  if (text === undefined) return undefined;
  try {
    return parse(text);
  } catch (error) {
    throw new ApplianceError('invalid_config', `${file}: ${(error as Error).message}`);
  }
}

/** Pure: merge the layers and validate. A bad merged config names the offending key. */
export function resolveConfig(central: ConfigTree | undefined, local: ConfigTree | undefined): ApplianceConfig {
  const merged = mergeLayers({}, central, local);
  const parsed = applianceConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApplianceError('invalid_config', `invalid configuration at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}

export async function loadApplianceConfig(environment: ApplianceEnvironment): Promise<ApplianceConfig> {
  const central = await readLayer(environment.centralConfigFile, (text) => JSON.parse(text) as ConfigTree);
  const local = await readLayer(environment.localConfigFile, (text) => TOML.parse(text) as ConfigTree);
  return resolveConfig(central, local);
}
