/**
 * Child process for crash-durability and concurrency tests (not a test itself):
 *   node --import tsx crash-writer.ts <file> <NORMAL|FULL> <count> <prefix>
 * Inserts `count` detections with images and writes each detection_id to stdout only
 * AFTER insertDetection returned, i.e. after its transaction committed: exactly the moment
 * a camera would be acknowledged. The parent may SIGKILL it at any point.
 */
import { writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { openBuffer } from './open.ts';
import { insertDetection } from './insert.ts';
import { SYNCHRONOUS_MODES, type SynchronousMode } from './types.ts';

const [file, syncArg, countArg, prefix] = process.argv.slice(2);
const synchronous = SYNCHRONOUS_MODES.find((mode) => mode === syncArg);
if (file === undefined || synchronous === undefined || countArg === undefined || prefix === undefined) {
  process.stderr.write('usage: crash-writer.ts <file> <NORMAL|FULL> <count> <prefix>\n');
  process.exit(2);
}
run(file, synchronous, Number(countArg), prefix);

function run(path: string, mode: SynchronousMode, count: number, idPrefix: string): void {
  const silent = { info: () => {}, warn: () => {}, error: () => {} };
  const buffer = openBuffer({ file: path, clock: { now: () => new Date() }, log: silent, synchronous: mode });
  // Recent captures: the buffer refuses reads older than its 7-day horizon. 3 days back with
  // 2 s between reads keeps even 100,000 of them inside [now - 3 d, now].
  const base = Date.now() - 3 * 86_400_000;
  writeSync(1, 'ready\n');
  for (let i = 0; i < count; i += 1) {
    const id = `${idPrefix}-${i}`;
    // Distinct plates 2 s apart: every insert is a real store, never deduped.
    const result = insertDetection(
      buffer,
      {
        detection_id: id,
        timestamp: new Date(base + i * 2_000).toISOString(),
        camera: { id: 'cam-crash', mac: '0011223344aa' },
        plate: { text: `${idPrefix.toUpperCase().replace(/[^A-Z0-9]/g, '')}${i}`, confidence: 0.8 },
      },
      { plate_crop: randomBytes(2048), full_scene: randomBytes(8192) },
    );
    if (result.status !== 'stored') throw new Error(`unexpected ${result.status} for ${id}`);
    writeSync(1, `${id}\n`);
  }
}
