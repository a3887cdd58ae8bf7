/**
 * The parse command: `npm run -s parse -- --vendor <vendor_a|vendor_b|auto> ... <file>...`.
 * Prints a JSON array of normalized detections; exit 0 (also for `[]`), 2 when a payload
 * cannot be parsed at all, with a one-line reason on stderr. Files are read in order as one
 * stream, so a vendor_b `update` packet can complete an earlier `add`. The command itself is
 * scripts/parse/command.ts.
 */
import { parseCommand } from './parse/command.ts';

const outcome = await parseCommand(process.argv.slice(2));
process.stderr.write(outcome.stderr);
process.stdout.write(outcome.stdout);
process.exitCode = outcome.status;
