/**
 * `npm run hub -- export verify <file.zip> [--public-key <base64>]`: checks an evidence
 * export offline (docs/evidence-export.md). Exit 0: intact and signed by that key; 1: not,
 * with every altered, missing or unexpected file named; 2: usage.
 */
import { readZipFiles } from '../evidence/read-zip.ts';
import { verifyExport } from '../evidence/manifest.ts';
import type { CliIo } from './cli-io.ts';

export async function runExportVerify(args: readonly string[], io: CliIo): Promise<number> {
  const file = args[0];
  const keyAt = args.indexOf('--public-key');
  const keyText = keyAt >= 0 ? args[keyAt + 1] : undefined;
  if (args[0] !== undefined && args[0].startsWith('--')) return usage(io);
  if (!file || (keyAt >= 0 && !keyText) || args.length > (keyAt >= 0 ? 3 : 1)) return usage(io);
  const key = keyText ? Buffer.from(keyText, 'base64') : undefined;
  if (key && key.length !== 32) {
    io.stderr('--public-key must be the base64 of a 32-byte Ed25519 key (the hub_public_key)\n');
    return 2;
  }
  let files: Map<string, Uint8Array>;
  try {
    files = await readZipFiles(file);
  } catch (err) {
    io.stdout(`NOT VERIFIED: ${file} cannot be read as a zip (${(err as Error).message})\n`);
    return 1;
  }
  const result = verifyExport(files, key);
  if (result.ok) {
    io.stdout(
      `VERIFIED: ${result.detections} detections, ${files.size} files, signature checked with the key ${result.keySource}${result.keySource === 'in the export' ? ' (pass --public-key to prove which hub made it)' : ''}\n`,
    );
    return 0;
  }
  io.stdout(`NOT VERIFIED: ${result.problems.length} problem(s)\n${result.problems.map((p) => `  - ${p}`).join('\n')}\n`);
  return 1;
}

function usage(io: CliIo): number {
  io.stderr('usage: npm run hub -- export verify <file.zip> [--public-key <base64>]\n');
  return 2;
}
