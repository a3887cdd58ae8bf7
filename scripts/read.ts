/**
 * The read command: `npm run -s read -- [--region us|eu|br] <image>...`. Reads plates off still
 * JPEG photographs with the appliance's own reader (the same worker thread a camera uses) and
 * prints one JSON array per image, in order: each plate with its confidence, box, candidates and
 * the frame's milliseconds. Exit 2 with a one-line reason on stderr for a file it cannot read or
 * decode, or for a missing model.
 */
import { readFile } from 'node:fs/promises';
import { openFrameReader } from '../appliance/src/reader/open-reader.ts';
import { isRegion, REGIONS } from '../appliance/src/reader/plate-formats.ts';
import { ReaderError } from '../appliance/src/reader/types.ts';

const USAGE = `usage: npm run -s read -- [--region ${REGIONS.join('|')}] <image.jpg>...`;

function parseArgs(argv: string[]): { region?: string; files: string[] } | { error: string } {
  const files: string[] = [];
  let region: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--region' || arg.startsWith('--region=')) {
      const value = arg === '--region' ? argv[++i] : arg.slice('--region='.length);
      if (!value || !isRegion(value)) return { error: `unknown region ${JSON.stringify(value ?? '')}` };
      region = value;
    } else if (arg.startsWith('--')) {
      return { error: `unknown option ${arg}` };
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0) return { error: 'no image given' };
  return { region, files };
}

const args = parseArgs(process.argv.slice(2));
if ('error' in args) {
  process.stderr.write(`read: ${args.error}\n${USAGE}\n`);
  process.exit(2);
}

const reader = await openFrameReader();
let failure: string | undefined;
for (const file of args.files) {
  try {
    const bytes = await readFile(file);
    const result = await reader.read(bytes, { region: args.region });
    const plates = result.plates.map((p) => ({ ...p, ms: result.ms }));
    process.stdout.write(`${JSON.stringify(plates, null, 2)}\n`);
  } catch (error) {
    const reason =
      error instanceof ReaderError
        ? error.message
        : error instanceof Error && 'code' in error && error.code === 'ENOENT'
          ? 'no such file'
          : String(error instanceof Error ? error.message : error);
    failure = `${file}: ${reason.split('\n')[0]}`;
    break;
  }
}
await reader.close();
if (failure) {
  process.stderr.write(`read: ${failure}\n`);
  process.exit(2);
}
