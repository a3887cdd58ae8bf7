/**
 * Appliance buffer benchmark: insert throughput and latency at synchronous NORMAL and FULL,
 * with realistic images (plate crop ~20 KB + full scene ~65 KB of random bytes), one
 * detection per transaction and in groups (insertDetections: one commit for a runner's page),
 * then the uplink's drain rate (nextBatch 50 -> markInFlight -> markUploaded).
 *
 *   npx tsx scripts/bench/appliance-buffer.ts [--count 2000] [--modes NORMAL,FULL] [--groups 1,10] [--dir /tmp]
 *
 * Goal (issue 4): >= 1,000 detections/s with images. Figures go to docs/buffer.md.
 */
import { mkdtempSync, rmSync, statSync, openSync, writeSync, fsyncSync, closeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  openBuffer,
  closeBuffer,
  insertDetections,
  nextBatch,
  markInFlight,
  markUploaded,
  SYNCHRONOUS_MODES,
  type SynchronousMode,
} from '../../appliance/src/buffer/index.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    modes: { type: 'string', default: 'NORMAL,FULL' },
    groups: { type: 'string', default: '1,10' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const count = Number(values.count);
const modes = values.modes.split(',').map((mode) => {
  const found = SYNCHRONOUS_MODES.find((m) => m === mode.trim().toUpperCase());
  if (!found) throw new Error(`unknown mode ${mode}`);
  return found;
});

const groups = values.groups.split(',').map((g) => Math.max(1, Number(g)));
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const clock = { now: () => new Date() };
/** A pool of distinct random images, reused round-robin so generation is not timed. */
const POOL = Array.from({ length: 64 }, () => ({ plate_crop: randomBytes(20 * 1024), full_scene: randomBytes(65 * 1024) }));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const ms = (n: number) => n.toFixed(3);

function fsyncProbe(dir: string): number {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const samples: number[] = [];
  for (let i = 0; i < 50; i += 1) {
    writeSync(fd, randomBytes(4096));
    const start = process.hrtime.bigint();
    fsyncSync(fd);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  closeSync(fd);
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
}

function benchMode(dir: string, mode: SynchronousMode, group: number): void {
  const file = join(dir, `bench-${mode}-${group}.db`);
  const buffer = openBuffer({ file, clock, log: silent, synchronous: mode });
  const base = Date.now();
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < count; i += group) {
    const items = Array.from({ length: Math.min(group, count - i) }, (_, k) => ({
      detection: {
        detection_id: `bench-${i + k}`,
        timestamp: new Date(base + (i + k) * 1000).toISOString(),
        camera: { id: `cam-${(i + k) % 4}`, mac: `00112233440${(i + k) % 4}` },
        plate: { text: `BN${i + k}`, confidence: 0.9 },
        vehicle: { direction: 'entering' as const, vehicle_type: 'car' as const },
      },
      images: POOL[(i + k) % POOL.length],
    }));
    const t0 = process.hrtime.bigint();
    insertDetections(buffer, items);
    // Latency of the commit that acknowledges these detections (the group's, for a group).
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  // CPU time per detection: a load-independent figure when the machine is shared.
  const cpuMsPer = (cpu.user + cpu.system) / 1000 / count;
  latencies.sort((a, b) => a - b);
  const mb = statSync(file).size / 1024 / 1024;
  console.log(
    `insert ${mode.padEnd(6)} group ${String(group).padStart(2)} n=${count}  ${(count / seconds).toFixed(0).padStart(6)} det/s  ` +
      `p50 ${ms(percentile(latencies, 50))} ms  p95 ${ms(percentile(latencies, 95))} ms  ` +
      `p99 ${ms(percentile(latencies, 99))} ms  max ${ms(latencies[latencies.length - 1] ?? NaN)} ms  ` +
      `cpu ${ms(cpuMsPer)} ms/det (${(1000 / cpuMsPer).toFixed(0)} det/s of CPU)  ` +
      `(${((count * 85) / 1024 / seconds).toFixed(1)} MiB/s of images, db ${mb.toFixed(0)} MiB)`,
  );

  const drainStart = process.hrtime.bigint();
  let drained = 0;
  for (;;) {
    const batch = nextBatch(buffer);
    if (batch.length === 0) break;
    const ids = batch.map((item) => item.detection.detection_id);
    markInFlight(buffer, ids);
    drained += markUploaded(buffer, ids);
  }
  const drainSeconds = Number(process.hrtime.bigint() - drainStart) / 1e9;
  if (group === 1)
    console.log(
      `drain  ${mode.padEnd(6)}          n=${drained}  ${(drained / drainSeconds).toFixed(0).padStart(6)} det/s  (batches of 50: read + in_flight + delete)`,
    );
  closeBuffer(buffer);
}

const dir = mkdtempSync(join(values.dir, 'alpr-buffer-bench-'));
try {
  console.log(
    `node ${process.version}, ${cpus().length} cpu, load ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}, dir ${dir}`,
  );
  console.log(`fsync p50 on this disk: ${ms(fsyncProbe(dir))} ms`);
  for (const group of groups) for (const mode of modes) benchMode(dir, mode, group);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
