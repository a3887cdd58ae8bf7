/**
 * Hub ingest benchmark: the real hub (Postgres, image store on disk, HTTP on 127.0.0.1)
 * in this process, batches of 50 posted with undici by a child process standing for the
 * collectors (ingest-uploaders.ts: in production they are other machines, so their work
 * must not run on the hub's event loop).
 *
 *   eval "$(scripts/bench/production-postgres.sh start)"; export DATABASE_URL
 *   npx tsx scripts/bench/hub-ingest.ts [--batches 200] [--concurrency 4] [--repeat 3]
 *
 * Meant for a production-configured server (fsync, synchronous_commit, full_page_writes on;
 * `npm run bench` starts one): the settings are printed first, with a warning when any is
 * off. Each figure is printed with the 1-minute load average at its end (shared machine).
 *
 * Two workloads, each run `--repeat` times: one collector uploading one batch at a time (latency), and
 * `--concurrency` collectors uploading at once (sustained detections/s). With images, a third
 * run paces the same collectors at `--rate` detections/s (latency at that load, see `rate`).
 * Request bodies are built before each timed chunk, so the collectors' own encoding and
 * hashing are not counted.
 * Uses a fresh database (created and dropped here) and a temporary image folder.
 */
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { verifyChain } from '../../hub/src/db/chain.ts';
import { openDatabase } from '../../hub/src/db/client.ts';
import { createBenchDatabase } from './bench-database.ts';
import { claim } from '../../hub/src/collectors/claim.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { startAlerts } from '../../hub/src/alerts/run.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { giveHeapHeadroom } from '../../hub/src/ingest/heap-headroom.ts';
import { SEGMENTS_FOLDER, sha256Hex } from '../../hub/src/images/image-store.ts';
import { startTestHub, type TestHub } from '../../hub/src/ingest/uploads.test-helper.ts';
import type { UploadRun } from './ingest-uploaders.ts';
import { runUploaders } from './uploaders-process.ts';
import { compareSearchKeys } from './search-keys-cost.ts';
import { startKeyBuilder } from '../../hub/src/search/key-builder-worker.ts';
import { startBlockSealer } from '../../hub/src/search/block-sealer.ts';
import { keyLag } from '../../hub/src/db/unkeyed-reads.ts';
import { databaseTime, type DatabaseTime } from './database-time.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '4' },
    size: { type: 'string', default: '50' },
    /** `plain` (no images), `images`, or `both`. */
    workload: { type: 'string', default: 'both' },
    /** Runs of each workload (each printed): the machine is shared, one run can be unlucky. */
    repeat: { type: 'string', default: '1' },
    /**
     * Detections/s offered by the collectors together in the paced run with images (0: no
     * paced run). The flat-out run measures the most the hub takes, and its latency is the
     * queue that saturation builds (4 collectors x 50 / throughput); the paced run measures
     * the latency a site sees at that load.
     */
    rate: { type: 'string', default: '1500' },
    /**
     * Pairs of runs without images, the search keys on and off (search-keys-cost.ts): what
     * the one-edit keys, the 0036 index and the 0037 trigram postings cost at ingest. Every plate this bench uploads is
     * new, so each detection also writes its plate's keys: the worst case.
     */
    'key-pairs': { type: 'string', default: '0' },
    /** Which keys the pairs turn off: `all`, or `postings` (the trigram postings alone). */
    'key-set': { type: 'string', default: 'all' },
  },
});
const BATCHES = Number(args.batches);
const CONCURRENCY = Number(args.concurrency);
const BATCH_SIZE = Number(args.size);
const REPEAT = Number(args.repeat);
const KEY_PAIRS = Number(args['key-pairs']);
const KEY_SET = args['key-set'] === 'postings' ? 'postings' : 'all';
if (args['key-set'] !== KEY_SET) throw new Error(`--key-set ${args['key-set']}: all or postings`);
const RATE = Number(args.rate);
if (!Number.isFinite(RATE) || RATE < 0) throw new Error(`--rate ${args.rate}: detections per second, or 0 for no paced run`);
const WARMUP_BATCHES = 10 * CONCURRENCY;
const CROP_BYTES = 20 * 1024;
const SCENE_BYTES = 65 * 1024;

interface RunResult {
  latencies: number[];
  /** The hub's own EWMA of transaction and image-write time, sampled after each batch. */
  dbMs: number[];
  imageMs: number[];
  seconds: number;
  statuses: Map<string, number>;
  /** The search key builder's lag, sampled every 250 ms during the run (seconds). */
  lagSeconds: number[];
  /** Where the database's time went during the run (database-time.ts), or why that is unknown. */
  databaseLine: string;
}

/** Set once the bench database exists; a string when the server cannot say (database-time.ts). */
let databaseTimes: DatabaseTime | string = 'no database time per statement yet';

/**
 * One collector per in-flight upload, as in production (a collector uploads one batch at a
 * time; its hash chain serializes its own batches, different collectors run in parallel).
 */
async function collectorKeys(hub: TestHub, count: number): Promise<string[]> {
  const keys = [hub.apiKey];
  while (keys.length < count) {
    const created = await createCollector(hub.deps, SYSTEM_ACTOR, { siteName: `Bench site ${keys.length}` });
    const enrolled = await claim(hub.deps, { claim_code: created.claimCode, hardware_id: `bench-${randomUUID()}` }, '127.0.0.1');
    keys.push(enrolled.api_key);
  }
  return keys;
}

/**
 * One run of uploads from the collectors' child process (ingest-uploaders.ts); the hub's own
 * EWMAs are sampled here, in the hub's process, as each answer is reported.
 */
async function run(hub: TestHub, withImages: boolean, keys: readonly string[], ratePerSecond?: number, batches = BATCHES): Promise<RunResult> {
  const latencies: number[] = [];
  const dbMs: number[] = [];
  const imageMs: number[] = [];
  const statuses = new Map<string, number>();
  const upload: UploadRun = { url: hub.url, keys, batches, batchSize: BATCH_SIZE, withImages, cropBytes: CROP_BYTES, sceneBytes: SCENE_BYTES, ratePerSecond };
  const lagSeconds: number[] = [];
  if (typeof databaseTimes !== 'string') await databaseTimes.reset();
  const sampler = setInterval(() => {
    keyLag(hub.deps.db, new Date())
      .then((lag) => lagSeconds.push(lag.seconds))
      .catch(() => undefined);
  }, 250);
  const seconds = await runUploaders(upload, (latencyMs, status) => {
    latencies.push(latencyMs);
    const load = hub.deps.load.measurements();
    dbMs.push(load.dbWriteLatencyMs);
    imageMs.push(load.imageStoreLatencyMs);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  clearInterval(sampler);
  const databaseLine = typeof databaseTimes === 'string' ? `  ${databaseTimes}` : await databaseTimes.line(latencies.length);
  return { latencies, dbMs, imageMs, seconds, statuses, lagSeconds, databaseLine };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function report(name: string, r: RunResult): void {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const lags = [...r.lagSeconds].sort((a, b) => a - b);
  const rate = (r.latencies.length * BATCH_SIZE) / r.seconds;
  const codes = [...r.statuses].map(([code, n]) => `${code} x${n}`).join(', ');
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(
    `${name.padEnd(30)} p50 ${percentile(sorted, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(sorted, 95).toFixed(1).padStart(6)} ms  ` +
      `p99 ${percentile(sorted, 99).toFixed(1).padStart(6)} ms  ${rate.toFixed(0).padStart(5)} detections/s  ` +
      `(hub: transaction ~${mean(r.dbMs).toFixed(0)} ms, images ~${mean(r.imageMs).toFixed(0)} ms)  ` +
      `key lag p50 ${percentile(lags, 50).toFixed(2)} / p99 ${percentile(lags, 99).toFixed(2)} / max ${(lags[lags.length - 1] ?? 0).toFixed(2)} s  load ${loadavg()[0]?.toFixed(2)}  [${codes}]`,
  );
  console.log(r.databaseLine);
}

/** The durability settings the figures were taken with: production means all three on. */
async function serverDurability(admin: postgres.Sql): Promise<string> {
  const rows = await admin<{ name: string; setting: string }[]>`
    SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`;
  const settings = rows.map((r) => `${r.name}=${r.setting}`).join(' ');
  const production = rows.length === 3 && rows.every((r) => r.setting === 'on');
  const [version] = await admin<{ v: string }[]>`SELECT current_setting('server_version') AS v`;
  return production
    ? `PostgreSQL ${version?.v}, production durability: ${settings}`
    : `WARNING: PostgreSQL ${version?.v} is NOT configured like production (${settings}); figures are optimistic. Use scripts/bench/production-postgres.sh.`;
}

async function main(): Promise<void> {
  giveHeapHeadroom(); // as the hub's entry points do

  const bench = await createBenchDatabase(
    process.env['DATABASE_URL'],
    'alpr_bench',
    'eval "$(scripts/bench/production-postgres.sh start)"; export DATABASE_URL',
  );
  const admin = bench.admin;
  databaseTimes = await databaseTime(admin, bench.name);
  const db = await openDatabase({ url: bench.url, log: createLog('silent'), maxConnections: 10 });
  // Errors only, to stderr: a 500 during the run shows its cause.
  const hub = await startTestHub({ db, latitude: 51.5, longitude: -0.12, log: createLog('error', process.stderr) });
  // The alert worker runs as in a real hub: it drains the alert queue the uploads fill (without
  // it the queue passes 10,000 and every answer becomes a queue-depth 202), and it shares the CPU.
  const alerts = await startAlerts({ db, clock: systemClock, log: createLog('error', process.stderr) }, { lockTimeoutMs: 30_000 });
  // The search key builder runs as in a real hub (start-workers.ts): after commit, sharing the CPU.
  let keyBuilder = await startKeyBuilder({ db, clock: systemClock, log: createLog('error', process.stderr) });
  // And its sealer, which moves the postings into blocks every 100,000 keyed reads
  // (docs/search.md "Postings sealed in blocks"): a seal falls inside some run, as in a hub.
  const sealer = await startBlockSealer({ db, clock: systemClock, log: createLog('error', process.stderr) });
  try {
    console.log(await serverDurability(admin));
    console.log(`hub ingest: ${BATCHES} batches of ${BATCH_SIZE} per run, images ${CROP_BYTES / 1024} KB crop + ${SCENE_BYTES / 1024} KB scene`);
    const keys = await collectorKeys(hub, CONCURRENCY);
    const one = keys.slice(0, 1);
    // Warm-up, not reported: JIT, the thread pool, and what a long-running hub pays once per
    // collector or connection: a pool connection per concurrent upload with its prepared
    // statements and their plans, each key's first use, each chain's genesis row, the first
    // image segment, the reused body buffers. Measured without it, the first batches of
    // the first four-collector run took 220-290 ms against a median of ~90 ms, which alone
    // moved that run's p95 from 151 to 193 ms (docs/performance.md).
    console.log(`warm-up (not reported): ${WARMUP_BATCHES} batches with images from the ${keys.length} collectors at once`);
    await run(hub, true, keys, undefined, WARMUP_BATCHES);
    for (let i = 0; i < REPEAT; i++) {
      if (args.workload !== 'images') {
        report('no images, sequential', await run(hub, false, one));
        report(`no images, ${CONCURRENCY} collectors`, await run(hub, false, keys));
      }
      if (args.workload !== 'plain') {
        report('with images, sequential', await run(hub, true, one));
        report(`with images, ${CONCURRENCY} collectors`, await run(hub, true, keys));
        if (RATE > 0) report(`with images, ${CONCURRENCY} paced ${RATE}/s`, await run(hub, true, keys, RATE));
      }
    }
    // The builder's own throughput: stopped, a backlog of plain uploads from the collectors
    // (every plate new: each read also keys a new plate, the worst case), then timed to drain.
    await keyBuilder.stop();
    await run(hub, false, keys);
    const backlog = await keyLag(db, new Date());
    const drainStarted = performance.now();
    const drained = await keyBuilder.drain();
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    console.log(
      `search key builder: a backlog of ${backlog.reads} reads keyed in ${drainSeconds.toFixed(2)} s, ${(drained / drainSeconds).toFixed(0)} reads/s  load ${loadavg()[0]?.toFixed(2)}`,
    );
    keyBuilder = await startKeyBuilder({ db, clock: systemClock, log: createLog('error', process.stderr) });
    if (KEY_PAIRS > 0) {
      await compareSearchKeys(
        db,
        [
          { name: 'no images, sequential', run: () => run(hub, false, one) },
          { name: `no images, ${CONCURRENCY} collectors`, run: () => run(hub, false, keys) },
        ],
        KEY_PAIRS,
        BATCH_SIZE,
        KEY_SET,
      );
    }
    // Images stay in their segments (ADR 0004): nothing runs behind the uploads. What they
    // take on disk, and a check that every stored image is indexed and reads back intact.
    const segmentsDir = join(hub.imageDir, SEGMENTS_FOLDER);
    const segments = await readdir(segmentsDir).catch(() => []);
    const bytes = (await Promise.all(segments.map(async (n) => (await stat(join(segmentsDir, n))).size))).reduce((a, b) => a + b, 0);
    const [indexed] = await db.sql<{ n: string }>('SELECT count(*) AS n FROM image_locations');
    const sample = await db.sql<{ h: string }>(`SELECT encode(sha256, 'hex') AS h FROM image_locations ORDER BY random() LIMIT 200`);
    let intact = 0;
    for (const { h } of sample) if (sha256Hex((await hub.deps.images.get(h)) ?? new Uint8Array()) === h) intact += 1;
    console.log(
      `image segments at the end: ${segments.length}, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${indexed?.n} images indexed; ${intact}/${sample.length} sampled read back intact`,
    );
    const [row] = await db.sql<{ n: string }>('SELECT count(*) AS n FROM detections');
    const chains = await db.sql<{ id: string }>('SELECT collector_id AS id FROM collector_chain_heads');
    const verified = await Promise.all(chains.map((c) => verifyChain(db, c.id)));
    console.log(`stored ${row?.n} detections; hash chains: ${JSON.stringify(verified)}`);
    const [blocks] = await db.sql<{ n: string; sealed: string }>('SELECT count(*)::text AS n, coalesce(sum(n), 0)::text AS sealed FROM trigram_blocks');
    console.log(`search postings sealed in blocks during the runs: ${blocks?.sealed} in ${blocks?.n} blocks`);
  } finally {
    await sealer.stop();
    await keyBuilder.stop();
    await alerts.stop();
    await hub.close();
    await db.close();
    await bench.drop();
  }
}

await main();
