/**
 * Admin command line: `npm run hub -- collector create --site-name "North gate"`.
 * Opens the hub database from the same configuration as the server (DATABASE_URL, or
 * the PGlite folder under HUB_DATA_DIR; PGlite allows one process, so stop the hub
 * first). Results go to stdout, logs to stderr. Exit codes: 0 done, 1 refused or
 * failed, 2 usage.
 */
import { ZodError } from 'zod';
import { systemClock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { HubError } from '../platform/errors.ts';
import { createLog } from '../platform/log.ts';
import { servedCertificateSha256 } from '../tls/served.ts';
import { UsageError, type Action } from './arguments.ts';
import { parseCommandLine, planCommand, USAGE } from './collector-commands.ts';
import { createOutput } from './output.ts';
import { runUserCommand } from './user-commands.ts';
import { runWorkerCommand } from './worker-command.ts';
import { runExportVerify } from './export-verify.ts';
import { runRetentionCommand } from './retention-command.ts';
import { runBackupCommand } from './backup-command.ts';

/** At the default `info` the CLI would echo every action it just printed: warn and worse only. */
function cliLogLevel(configured: string): string {
  return configured === 'info' ? 'warn' : configured;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'user') return runUserCommand(argv.slice(1));
  if (argv[0] === 'worker') return runWorkerCommand(argv.slice(1));
  if (argv[0] === 'export' && argv[1] === 'verify') return runExportVerify(argv.slice(2));
  if (argv[0] === 'retention') return runRetentionCommand(argv.slice(1));
  if (argv[0] === 'backup' || argv[0] === 'restore') return runBackupCommand(argv[0], argv.slice(1));
  let parsed: ReturnType<typeof parseCommandLine>;
  let action: Action;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.options.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    action = planCommand(parsed.positionals, parsed.options);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  const loaded = loadHubConfig(process.env);
  // What the hub serves, read from its certificate file: shown beside claim codes, and by `hub-certificate`.
  const served = await servedCertificateSha256(loaded);
  const config = served === undefined ? loaded : { ...loaded, certificateSha256: served };
  const log = createLog(cliLogLevel(config.logLevel), process.stderr);
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 2 });
  const out = createOutput(parsed.options.json === true, (line) => process.stdout.write(`${line}\n`));
  try {
    return await action({ db, clock: systemClock, log, config }, out);
  } catch (err) {
    if (err instanceof HubError) {
      process.stderr.write(`error (${err.code}): ${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError || err instanceof ZodError) {
      process.stderr.write(
        `${err instanceof ZodError ? `invalid input: ${err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` : err.message}\n`,
      );
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
