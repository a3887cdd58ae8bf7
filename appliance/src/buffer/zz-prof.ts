import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { detectionSchema } from '@alpr/shared/detection/schema';
import { openBuffer, insertDetection, closeBuffer } from './index.ts';
const N = 1000;
const POOL = Array.from({ length: 64 }, () => ({ plate_crop: randomBytes(20 * 1024), full_scene: randomBytes(65 * 1024) }));
const det = (i: number) => ({ detection_id: `b-${i}-${Math.random()}`, timestamp: new Date(1e12 + i * 1000).toISOString(), camera: { id: 'c', mac: '001122334455' }, plate: { text: `BN${i}`, confidence: 0.9 } });
function time(label: string, fn: (i: number) => void) { const s = process.hrtime.bigint(); for (let i = 0; i < N; i++) fn(i); const sec = Number(process.hrtime.bigint() - s) / 1e9; console.log(label.padEnd(30), (N / sec).toFixed(0), '/s', (sec * 1e6 / N).toFixed(0), 'us each'); }
time('zod parse', (i) => detectionSchema.parse(det(i)));
time('sha256 85KB', (i) => { const p = POOL[i % 64]!; createHash('sha256').update(p.plate_crop).digest('hex'); createHash('sha256').update(p.full_scene).digest('hex'); });
const dir = mkdtempSync('/tmp/prof-');
for (const sync of ['NORMAL', 'FULL'] as const) {
  const b = openBuffer({ file: join(dir, `a${sync}.db`), clock: { now: () => new Date() }, log: console, synchronous: sync });
  time(`insert no images ${sync}`, (i) => insertDetection(b, det(i)));
  time(`insert images ${sync}`, (i) => insertDetection(b, det(i + N), POOL[i % 64]));
  b.sqlite.pragma('synchronous = OFF');
  time(`insert images OFF`, (i) => insertDetection(b, det(i + 2 * N), POOL[i % 64]));
  closeBuffer(b);
}
