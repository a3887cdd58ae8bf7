/**
 * Admin command line: `npm run hub -- collector create --site-name "North gate"`.
 * Opens the hub database from the same configuration as the server (DATABASE_URL, or
 * the PGlite folder under HUB_DATA_DIR; PGlite allows one process, so stop the hub
 * first). Results go to stdout, logs to stderr. Exit codes: 0 done, 1 refused or
 * failed, 2 usage.
 */
import { systemClock } from '../clock.ts';
import { loadHubConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { HubError } from '../errors.ts';
import { createLog } from '../log.ts';
import { parseCommandLine, runCommand, USAGE, UsageError } from './collector-commands.ts';
import { createOutput } from './output.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The CLI logs warnings and worse unless configured to be quieter or more verbose than info. */
function cliLogLevel(configured: string): string {
  return LEVELS.indexOf(configured) >= LEVELS.indexOf('warn') || LEVELS.indexOf(configured) < LEVELS.indexOf('info') ? configured : 'warn';
}

async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.options.help || parsed.positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return parsed.options.help ? 0 : 2;
  }
  const config = loadHubConfig(process.env);
  const log = createLog(cliLogLevel(config.logLevel), process.stderr);
  const db = await openDatabase({ ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }), log, maxConnections: 2 });
  const out = createOutput(parsed.options.json === true, (line) => process.stdout.write(`${line}\n`));
  try {
    return await runCommand({ db, clock: systemClock, log, config }, parsed.positionals, parsed.options, out);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof HubError) {
      process.stderr.write(`error (${err.code}): ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
