/**
 * What the search keys left at ingest cost (issue 38; docs/performance.md "Hub ingest"): since
 * migration 0038 the one-edit keys and the trigram postings are built after commit by the key
 * builder (hub/src/search/key-builder.ts), so the one key a batch still writes is the
 * plate-collector-time index (migration 0036, one more B-tree entry per detection).
 *
 * Measured in pairs on one hub and one table: the same upload run with the index and without,
 * the order alternating from pair to pair so the table's growth and the machine's drift fall on
 * both sides. A pair's ratio is the honest figure on a shared machine; the median of the pairs
 * is printed at the end. Off means the index dropped; on re-creates it before the run, untimed.
 */
import { loadavg } from 'node:os';
import type { Database } from '../../hub/src/db/client.ts';

const INDEX = 'detections_plate_collector_captured_idx';

/** `all`: every key ingest still writes; `postings`: none any more (built after commit, 0038). */
export type KeySet = 'all' | 'postings';

export async function setSearchKeys(db: Database, on: boolean, which: KeySet = 'all'): Promise<void> {
  if (which === 'postings') throw new Error('--key-set postings: the trigram postings are built after commit since migration 0038, not at ingest');
  if (on) await db.sql(`CREATE INDEX IF NOT EXISTS ${INDEX} ON detections (plate_normalized, collector_id, captured_at)`);
  else await db.sql(`DROP INDEX IF EXISTS ${INDEX}`);
}

export interface TimedRun {
  /** Latency of each upload, ms. */
  latencies: number[];
  seconds: number;
}

export interface PairLine {
  name: string;
  run: () => Promise<TimedRun>;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

const p = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((q / 100) * sorted.length) - 1)] ?? NaN;

function summary(r: TimedRun): { p50: number; p95: number; rate: number } {
  const s = [...r.latencies].sort((a, b) => a - b);
  return { p50: p(s, 50), p95: p(s, 95), rate: r.latencies.length / r.seconds };
}

/**
 * `pairs` pairs of each line, keys on and off; prints each pair and the median ratios
 * (on / off: above 1 is what the keys cost). Leaves the keys on.
 */
export async function compareSearchKeys(db: Database, lines: readonly PairLine[], pairs: number, batchSize: number, which: KeySet = 'all'): Promise<void> {
  const what = which === 'all' ? 'the 0036 index' : 'nothing';
  console.log(`search keys at ingest: ${pairs} pairs per line, keys on vs off (${what}), order alternating`);
  for (const line of lines) {
    const p50Ratios: number[] = [];
    const rateRatios: number[] = [];
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? [true, false] : [false, true];
      const got = new Map<boolean, ReturnType<typeof summary>>();
      for (const on of order) {
        await setSearchKeys(db, on, which);
        got.set(on, summary(await line.run()));
      }
      const on = got.get(true);
      const off = got.get(false);
      if (!on || !off) continue;
      p50Ratios.push(on.p50 / off.p50);
      rateRatios.push(on.rate / off.rate);
      console.log(
        `  ${line.name.padEnd(24)} pair ${i + 1}: on p50 ${on.p50.toFixed(1)} / p95 ${on.p95.toFixed(1)} ms, ${(on.rate * batchSize).toFixed(0)} det/s; ` +
          `off p50 ${off.p50.toFixed(1)} / p95 ${off.p95.toFixed(1)} ms, ${(off.rate * batchSize).toFixed(0)} det/s; ` +
          `p50 ratio ${(on.p50 / off.p50).toFixed(2)}  load ${loadavg()[0]?.toFixed(2)}`,
      );
    }
    console.log(
      `  ${line.name.padEnd(24)} median of ${p50Ratios.length}: p50 on/off ${median(p50Ratios).toFixed(2)}, throughput on/off ${median(rateRatios).toFixed(2)}`,
    );
  }
  await setSearchKeys(db, true);
}
