/**
 * The parse command: `npm run -s parse -- --vendor <vendor_a|vendor_b|auto> ... <file>...`.
 * Prints a JSON array of normalized detections; exit 0 (also for `[]`), 2 when a payload
 * cannot be parsed at all, with a one-line reason on stderr. Files are read in order as one
 * stream, so a vendor_b `update` packet can complete an earlier `add`.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs, USAGE } from './parse/args.ts';
import { runParse } from './parse/run.ts';

const args = parseArgs(process.argv.slice(2));
if ('error' in args) {
  process.stderr.write(`parse: ${args.error}\n${USAGE}\n`);
  process.exit(2);
}
const result = await runParse(args, (path) => readFile(path));
for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
if (result.failure) {
  process.stderr.write(`parse: ${result.failure}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(result.detections, null, 2)}\n`);
