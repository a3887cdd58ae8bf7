/**
 * `npm run hub -- backup <dir>` and `npm run hub -- restore <dir>` (docs/operations.md
 * "Backup" and "Restore"). Backup runs beside the hub (PostgreSQL only); restore wants an
 * empty database at DATABASE_URL and an empty HUB_DATA_DIR. Exit 0 done, 1 refused or
 * failed (the reason on stderr), 2 usage.
 */
import { parseArgs } from 'node:util';
import { backup } from '../backup/backup.ts';
import { restore } from '../backup/restore.ts';
import { systemClock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { HubError } from '../platform/errors.ts';
import { cliLog, type CliIo } from './cli-io.ts';
import { createOutput } from './output.ts';

export async function runBackupCommand(verb: 'backup' | 'restore', args: readonly string[], io: CliIo): Promise<number> {
  const usage = `usage: npm run hub -- ${verb} <dir> [--json]`;
  let dir: string | undefined;
  let json = false;
  try {
    const parsed = parseArgs({ args: [...args], options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== 1) throw new Error(`${verb} takes one folder`);
    dir = parsed.positionals[0];
    json = parsed.values.json === true;
  } catch (err) {
    io.stderr(`${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  if (!dir) return 2;
  const config = loadHubConfig(io.env);
  const log = cliLog(io, config.logLevel);
  const out = createOutput(json, (line) => io.stdout(`${line}\n`));
  try {
    if (verb === 'backup') {
      const manifest = await backup({ config, clock: systemClock, log }, dir);
      out.record({
        backup: dir,
        migration: manifest.migration,
        collectors: manifest.counts.collectors,
        detections: manifest.counts.detections,
        files: manifest.files.length,
        bytes: manifest.files.reduce((sum, f) => sum + f.bytes, 0),
      });
    } else {
      const report = await restore({ config, log }, dir);
      out.record({ restored: dir, ...report, applied: report.applied.join(' ') || 'none' });
    }
    return 0;
  } catch (err) {
    if (!(err instanceof HubError)) throw err;
    io.stderr(`error (${err.code}): ${err.message}\n`);
    return 1;
  }
}
