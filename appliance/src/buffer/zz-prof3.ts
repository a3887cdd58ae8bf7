import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openBuffer, insertDetection, closeBuffer } from './index.ts';
const N = 1500;
const POOL = Array.from({ length: 64 }, () => ({ plate_crop: randomBytes(20 * 1024), full_scene: randomBytes(65 * 1024) }));
const det = (i: number) => ({ detection_id: `b-${i}-${Math.random()}`, timestamp: new Date(1e12 + i * 1000).toISOString(), camera: { id: 'c', mac: '001122334455' }, plate: { text: `BN${i}`, confidence: 0.9 } });
const dir = mkdtempSync('/tmp/prof-');
let k = 0;
for (const pageSize of [4096, 16384]) for (const ckpt of [1000, 4000]) for (const sync of ['NORMAL', 'FULL'] as const) {
  const file = join(dir, `x${k++}.db`);
  const raw = new Database(file); raw.pragma(`page_size = ${pageSize}`); raw.pragma('auto_vacuum = INCREMENTAL'); raw.exec('VACUUM'); raw.close();
  const b = openBuffer({ file, clock: { now: () => new Date() }, log: console, synchronous: sync });
  b.sqlite.pragma(`wal_autocheckpoint = ${ckpt}`);
  const s = process.hrtime.bigint();
  for (let i = 0; i < N; i++) insertDetection(b, det(i), POOL[i % 64]);
  const sec = Number(process.hrtime.bigint() - s) / 1e9;
  console.log(`page ${pageSize} ckpt ${ckpt} ${sync}: ${(N / sec).toFixed(0)}/s  page_size=${b.sqlite.pragma('page_size', { simple: true })}`);
  closeBuffer(b);
}
