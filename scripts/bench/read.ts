/**
 * `npm run bench:read [-- --every N]`: the on-appliance plate reader on the labelled US photographs
 * in `../shared/datasets/openalpr-us`, through the same worker-thread reader a camera uses. Prints
 * plates read exactly, characters right, plates missed, false plates (reads away from the labelled
 * plate), ms per photograph (p50, p95), frames per second on 1080p frames for one camera, and peak
 * RSS, each with the 1-minute load average when it was measured: on a shared machine the load is
 * half of any timing. `--every N` reads every Nth photograph only (a quick look, not the figure).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import jpeg from 'jpeg-js';
import { decodeJpeg } from '../../appliance/src/reader/decode-jpeg.ts';
import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { sampleRect } from '../../appliance/src/reader/raster.ts';
import { loadLabels, scorePhoto } from './read-dataset.ts';

const everyArg = process.argv.indexOf('--every');
const every = everyArg > 0 ? Math.max(1, Number(process.argv[everyArg + 1]) || 1) : 1;
const verbose = process.argv.includes('--verbose');

const labels = loadLabels().filter((_, i) => i % every === 0);
const reader = await openFrameReader();
let peakRss = 0;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const load = (): string => `load ${loadavg()[0]?.toFixed(2)}`;

let exact = 0;
let charsRight = 0;
let charsTotal = 0;
let missed = 0;
let falsePlates = 0;
const ms: number[] = [];
// The first frame pays for the models' warm-up; it is read once before timing.
await reader.read(readFileSync(labels[0]?.image ?? ''), { region: 'us' });
for (const label of labels) {
  const result = await reader.read(readFileSync(label.image), { region: 'us' });
  sampleRss();
  const score = scorePhoto(label, result.plates);
  ms.push(result.ms);
  if (score.exact) exact++;
  if (score.missed) missed++;
  charsRight += score.charsRight;
  charsTotal += label.plate.length;
  falsePlates += score.falsePlates;
  if (verbose && (!score.exact || score.falsePlates > 0)) {
    const others = result.plates.filter((p) => p.plate !== score.read).map((p) => `${p.plate} ${p.confidence}`);
    process.stdout.write(`  ${label.plate}: read ${score.read ?? '-'}${others.length ? `, also ${others.join(', ')}` : ''}\n`);
  }
}
const accuracyLoad = load();

// 1080p frames for one camera: photographs scaled to 1920×1080 and re-encoded, read back to back.
const frames = labels.slice(0, 12).map((label) => {
  const photo = decodeJpeg(readFileSync(label.image));
  const big = sampleRect(photo, { x: 0, y: 0, width: photo.width, height: photo.height }, 1920, 1080);
  return jpeg.encode({ data: big.data, width: big.width, height: big.height }, 90).data;
});
const frameMs: number[] = [];
const started = performance.now();
for (const frame of frames) {
  const result = await reader.read(frame, { region: 'us' });
  frameMs.push(result.ms);
  sampleRss();
}
const fps = frames.length / ((performance.now() - started) / 1000);
const fpsLoad = load();
await reader.close();

const n = labels.length;
const pct = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)} %`;
const lines = [
  `photographs            ${n}${every > 1 ? ` (every ${every}th)` : ''}`,
  `plates read exactly    ${exact} of ${n}, ${pct(exact, n)}   (${accuracyLoad})`,
  `characters right       ${charsRight} of ${charsTotal}, ${pct(charsRight, charsTotal)}`,
  `plates missed          ${missed}`,
  `false plates           ${falsePlates} (${(falsePlates / (n / 100)).toFixed(1)} per 100 photographs)`,
  `ms per photograph      p50 ${percentile(ms, 50)}, p95 ${percentile(ms, 95)}   (${accuracyLoad})`,
  `1080p frames           ${fps.toFixed(2)} frames/s, p50 ${percentile(frameMs, 50)} ms, p95 ${percentile(frameMs, 95)} ms   (${fpsLoad})`,
  `peak RSS               ${Math.round(peakRss / 1e6)} MB (the process, worker and models included)`,
];
process.stdout.write(`${lines.join('\n')}\n`);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}
