import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CommandAckRequest } from '@alpr/shared/protocol/collector';
import { previousLayerFile } from '../config/central-layer.ts';
import { CREDENTIALS_FILE } from '../keystore/keystore.ts';
import { LOGS_DIR } from '../log-file.ts';
import { secureDeleteFile, secureDeleteTree } from '../vault/secure-delete.ts';
import { SETUP_VAULT_DIR, VAULT_FILE } from '../vault/vault.ts';
import type { CommandRunnerDeps } from './ports.ts';
import { wipeLocalConfig, type LocalConfigWipe } from './wipe-local-config.ts';

/**
 * wipe (docs/protocol.md): stop, securely delete credential files, the local
 * buffer, logs and central configuration, scrub every secret out of the local TOML, then
 * restart awaiting a new claim. The ack is sent between the deletion and the restart with the
 * key still in memory (the file is gone by then); docs/appliance-lifecycle.md "Wipe".
 */

/** Folders of the data dir the wipe deletes whole: logs, and camera credentials staged before a claim. */
const WIPED_DIRS: readonly string[] = [LOGS_DIR, SETUP_VAULT_DIR];

/** Files of the data dir the wipe deletes, besides the folders above and the central layers. */
export function isWipedFile(name: string): boolean {
  return (
    name === CREDENTIALS_FILE ||
    name === VAULT_FILE ||
    /\.(sqlite|sqlite3|db)(-wal|-shm|-journal)?$/.test(name) ||
    /^central-config(\.prev)?\.json$/.test(name) ||
    // Leftovers of an interrupted atomic write (vault/atomic-file.ts): may hold a secret.
    /\.tmp$/.test(name)
  );
}

export interface WipeReport {
  deleted: string[];
  kept: string[];
  /** What became of the local TOML: scrubbed (secret keys named, never their values), deleted, absent. */
  localConfig: LocalConfigWipe | undefined;
  errors: string[];
}

export async function wipeDataDir(deps: Pick<CommandRunnerDeps, 'dataDir' | 'centralConfigFile' | 'localConfigFile'>): Promise<WipeReport> {
  const report: WipeReport = { deleted: [], kept: [], localConfig: undefined, errors: [] };
  const attempt = async (what: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      report.errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // The central layers may live outside the data dir (ALPR_DATA_DIR vs an explicit path).
  for (const file of [deps.centralConfigFile, previousLayerFile(deps.centralConfigFile)]) {
    await attempt(basename(file), async () => {
      if (await secureDeleteFile(file)) report.deleted.push(file);
    });
  }
  // Before the listing: its old contents go through a `*.tmp` link that must not be listed half-done.
  await attempt(basename(deps.localConfigFile), async () => {
    report.localConfig = await wipeLocalConfig(deps.localConfigFile);
    if (report.localConfig.outcome === 'deleted') report.deleted.push(report.localConfig.file);
  });
  const entries = await readdir(deps.dataDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(deps.dataDir, entry.name);
    if (entry.isDirectory() && WIPED_DIRS.includes(entry.name)) {
      await attempt(entry.name, async () => {
        report.deleted.push(...(await secureDeleteTree(path)));
      });
    } else if (!entry.isDirectory() && isWipedFile(entry.name)) {
      await attempt(entry.name, async () => {
        if (await secureDeleteFile(path)) report.deleted.push(path);
      });
    } else {
      // The local TOML (installation settings, scrubbed above) stays: the device must come back up on its LAN.
      report.kept.push(path);
    }
  }
  return report;
}

export type WipeDeps = Pick<CommandRunnerDeps, 'dataDir' | 'centralConfigFile' | 'localConfigFile' | 'stop' | 'restart' | 'log'>;

export async function runWipe(deps: WipeDeps): Promise<{ ack: CommandAckRequest; afterAck: () => Promise<void> }> {
  deps.log.warn({}, 'wipe: stopping the appliance');
  let stopError = '';
  try {
    await deps.stop();
  } catch (error) {
    // Deleting matters more than a clean stop: carry on, say so in the ack.
    stopError = `stop failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const report = await wipeDataDir(deps);
  const problems = [stopError, ...report.errors].filter((p) => p !== '');
  const local = report.localConfig;
  deps.log.warn(
    {
      deleted: report.deleted.length,
      kept: report.kept,
      // Key names and camera ids only: never a value.
      local_config: local?.outcome === 'scrubbed' ? { removed: local.removed, parked_cameras: local.parked } : (local ?? null),
      errors: problems,
    },
    'wipe: data deleted',
  );
  const ack: CommandAckRequest =
    problems.length === 0
      ? { status: 'success', detail: `wiped ${report.deleted.length} files; restarting unclaimed` }
      : { status: 'failed', detail: `wiped ${report.deleted.length} files with errors: ${problems.join('; ')}`.slice(0, 2000) };
  return { ack, afterAck: () => deps.restart() };
}
