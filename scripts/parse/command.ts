/**
 * The parse command as a function of its arguments (scripts/parse.ts binds it to the
 * process): what it prints on stdout and stderr, and its exit code. Tests run it in their own
 * process; a child per payload (node, tsx compiling the adapters) cost about 1.5 s each.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs, USAGE } from './args.ts';
import { runParse } from './run.ts';

export interface ParseOutcome {
  status: 0 | 2;
  stdout: string;
  stderr: string;
}

export async function parseCommand(argv: readonly string[]): Promise<ParseOutcome> {
  const args = parseArgs(argv);
  if ('error' in args) return { status: 2, stdout: '', stderr: `parse: ${args.error}\n${USAGE}\n` };
  const result = await runParse(args, (path) => readFile(path));
  const stderr = result.warnings.map((warning) => `warning: ${warning}\n`).join('');
  if (result.failure) return { status: 2, stdout: '', stderr: `${stderr}parse: ${result.failure}\n` };
  return { status: 0, stdout: `${JSON.stringify(result.detections, null, 2)}\n`, stderr };
}
