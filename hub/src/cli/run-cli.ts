/**
 * The admin command line as a function: argv in, exit code out, everything else through
 * `io` (cli-io.ts). Opens the hub database from the same configuration as the server
 * (DATABASE_URL, or the PGlite folder under HUB_DATA_DIR; PGlite allows one process, so
 * stop the hub first) and closes it before returning. Results go to stdout, messages and
 * logs to stderr. Exit codes: 0 done, 1 refused or failed, 2 usage.
 */
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { servedCertificateSha256 } from '../tls/served.ts';
import { UsageError, type Action } from './arguments.ts';
import type { CliIo } from './cli-io.ts';
import { runOnDatabase } from './run-action.ts';
import { parseCommandLine, planCommand, USAGE } from './collector-commands.ts';
import { runUserCommand } from './user-commands.ts';
import { runWorkerCommand } from './worker-command.ts';
import { runExportVerify } from './export-verify.ts';
import { runRetentionCommand } from './retention-command.ts';
import { runBackupCommand } from './backup-command.ts';

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'user') return runUserCommand(argv.slice(1), io);
  if (argv[0] === 'worker') return runWorkerCommand(argv.slice(1), io);
  if (argv[0] === 'export' && argv[1] === 'verify') return runExportVerify(argv.slice(2), io);
  if (argv[0] === 'retention') return runRetentionCommand(argv.slice(1), io);
  if (argv[0] === 'backup' || argv[0] === 'restore') return runBackupCommand(argv[0], argv.slice(1), io);
  let parsed: ReturnType<typeof parseCommandLine>;
  let action: Action;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.options.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    action = planCommand(parsed.positionals, parsed.options);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  const loaded = loadHubConfig(io.env);
  // What the hub serves, read from its certificate file: shown beside claim codes, and by `hub-certificate`.
  const served = await servedCertificateSha256(loaded);
  const config = served === undefined ? loaded : { ...loaded, certificateSha256: served };
  return runOnDatabase(io, config, parsed.options.json === true, action);
}
