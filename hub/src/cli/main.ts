/**
 * Admin command line: `npm run hub -- collector create --site-name "North gate"`.
 * run-cli.ts does the work; this file binds it to the real process (its argv,
 * environment, stdout, stderr and stdin) and sets the exit code: 0 done, 1 refused or
 * failed, 2 usage.
 */
import { processIo } from './cli-io.ts';
import { runCli } from './run-cli.ts';

process.exitCode = await runCli(process.argv.slice(2), processIo());
