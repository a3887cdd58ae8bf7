import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { PlatformDeps } from '../platform/deps.ts';
import type { LoadMonitor } from '../ingest/load-monitor.ts';
import { SEGMENTS_FOLDER } from '../images/image-store.ts';
import { BACKPRESSURE_TRIGGERS, decideBackpressure } from '../ingest/backpressure.ts';
import { createAlertLatencyFeed } from './alert-latency.ts';
import { keyLag, LAG_COUNT_CAP, readsPastSeal, type KeyLag } from '../db/unkeyed-reads.ts';
import { METRIC_PREFIX, type HubMetrics } from '../platform/hub-metrics.ts';

/**
 * Gauges computed when Prometheus scrapes, from the database, the image folder and the load
 * monitor: nothing on the request path pays for them. Costs per scrape (docs/metrics.md
 * "Cost of a scrape"): two LIMIT-bounded counts on the queues' (status, …) indexes, one
 * pg_stat_activity read, one readdir + stat per image segment file, one alerts range read, one
 * read of the search keys' lag (the reads past the key builder's cursor, capped).
 */
export type ScrapeDeps = Pick<PlatformDeps, 'db' | 'config' | 'log'> & { load: LoadMonitor };

/**
 * A queue deeper than this is reported as this: counting stops there, so a scrape stays
 * cheap (an index-only scan of at most 100,001 entries, ~20 ms) exactly when the hub is
 * struggling. 10 times the 10,000 at which backpressure starts (ingest/backpressure.ts).
 */
export const QUEUE_COUNT_CAP = 100_000;

const QUEUE_STATUSES = ['pending', 'processing', 'failed'] as const;

export function registerScrapeGauges(metrics: HubMetrics, deps: ScrapeDeps): void {
  if (metrics.scrapeGaugesRegistered) return;
  metrics.scrapeGaugesRegistered = true;
  const registers = [metrics.registry];
  // A scrape answers even when one source fails: the failure is logged and counted, and
  // that source's series keep their last values.
  const sourceErrors = new Counter({
    name: `${METRIC_PREFIX}metrics_source_errors_total`,
    help: 'Scrape-time sources (a query, the image folder) that failed, by source.',
    labelNames: ['source'],
    registers,
  });
  const guarded = <M>(source: string, fn: (this: M) => Promise<void>) =>
    async function (this: M) {
      try {
        await fn.call(this);
      } catch (err) {
        sourceErrors.inc({ source });
        deps.log.warn({ err, source }, 'metrics source failed');
      }
    };

  for (const [table, name, help] of [
    ['alert_queue', 'alert_queue_depth', 'Alert checks waiting (pending), claimed (processing) or given up (failed); counted up to the cap.'],
    ['notification_queue', 'notification_queue_depth', 'Notifications waiting (pending), claimed (processing) or given up (failed); counted up to the cap.'],
  ] as const) {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['status'],
      registers,
      collect: guarded(table, async function (this: Gauge<'status'>) {
        for (const status of QUEUE_STATUSES) this.set({ status }, await boundedCount(deps, table, status));
      }),
    });
  }

  new Gauge({
    name: `${METRIC_PREFIX}health_alerts_open`,
    help: 'Health alerts open now (closed_at IS NULL), by kind; counted up to the cap.',
    labelNames: ['kind'],
    registers,
    // The partial unique indexes health_alerts_one_open and health_alerts_hub_one_open hold exactly the open rows.
    collect: guarded('health_alerts', async function (this: Gauge<'kind'>) {
      const rows = await deps.db.sql<{ kind: string; n: string | number }>(
        `SELECT kind, count(*) AS n FROM (SELECT kind FROM health_alerts WHERE closed_at IS NULL LIMIT $1) AS bounded GROUP BY kind`,
        [QUEUE_COUNT_CAP + 1],
      );
      this.reset();
      for (const row of rows) this.set({ kind: row.kind }, Math.min(QUEUE_COUNT_CAP, Number(row.n)));
    }),
  });

  new Gauge({
    name: `${METRIC_PREFIX}db_connections`,
    help: "Server connections of the hub's database user in this database (all hub processes and workers), by state.",
    labelNames: ['state'],
    registers,
    collect: guarded('pg_stat_activity', async function (this: Gauge<'state'>) {
      this.reset();
      if (deps.db.kind !== 'postgres') {
        this.set({ state: 'embedded' }, 1); // PGlite: one in-process connection, no pool
        return;
      }
      const rows = await deps.db.sql<{ state: string | null; n: string | number }>(
        `SELECT coalesce(state, 'unknown') AS state, count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND usename = current_user AND backend_type = 'client backend'
          GROUP BY 1`,
      );
      for (const row of rows) this.set({ state: row.state ?? 'unknown' }, Number(row.n));
    }),
  });

  // Both gauges come from one pass over the folder: prom-client collects a registry's
  // metrics concurrently, so the two share the pass in flight.
  const segments = join(deps.config.imageDir, SEGMENTS_FOLDER);
  let scan: Promise<{ files: number; bytes: number }> | undefined;
  const scanSegments = () =>
    (scan ??= (async () => {
      const names = await readdir(segments).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
      let bytes = 0;
      // A segment removed by compaction between readdir and stat counts 0 bytes.
      for (const name of names) bytes += (await stat(join(segments, name)).catch(() => ({ size: 0 }))).size;
      return { files: names.length, bytes };
    })().finally(() => {
      scan = undefined;
    }));
  new Gauge({
    name: `${METRIC_PREFIX}image_store_bytes`,
    help: "Bytes in this hub's image segment files.",
    registers,
    collect: guarded('image_segments', async function (this: Gauge) {
      this.set((await scanSegments()).bytes);
    }),
  });
  new Gauge({
    name: `${METRIC_PREFIX}image_store_segments`,
    help: "Image segment files in this hub's image folder.",
    registers,
    collect: guarded('image_segments', async function (this: Gauge) {
      this.set((await scanSegments()).files);
    }),
  });

  new Gauge({
    name: `${METRIC_PREFIX}backpressure_active`,
    help: 'Whether batch answers carry backpressure now (1) or not (0).',
    registers,
    collect() {
      this.set(decideBackpressure(deps.load.measurements()) ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}backpressure_trigger`,
    help: 'Each backpressure trigger: firing (1) or not (0).',
    labelNames: ['reason'],
    registers,
    collect() {
      const m = deps.load.measurements();
      for (const trigger of BACKPRESSURE_TRIGGERS) this.set({ reason: trigger.reason }, trigger.active(m) ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}load_measurement`,
    help: 'What the backpressure decision sees: db_write_ms and image_write_ms (moving averages), queue_depth, cpu_percent.',
    labelNames: ['measure'],
    registers,
    collect() {
      const m = deps.load.measurements();
      this.set({ measure: 'db_write_ms' }, m.dbWriteLatencyMs);
      this.set({ measure: 'image_write_ms' }, m.imageStoreLatencyMs);
      this.set({ measure: 'queue_depth' }, m.queueDepth);
      this.set({ measure: 'cpu_percent' }, m.cpuPercent);
    },
  });

  // The search key builder's lag (docs/search.md "Keys built after commit"): one statement
  // for both gauges, shared like the segment scan, bounded by the lag itself.
  let lagRead: Promise<KeyLag> | undefined;
  const readLag = () =>
    (lagRead ??= keyLag(deps.db, new Date()).finally(() => {
      lagRead = undefined;
    }));
  new Gauge({
    name: `${METRIC_PREFIX}search_keys_lag_reads`,
    help: `Stored reads whose search keys the key builder has not written yet (counted up to ${LAG_COUNT_CAP}); searches still find them.`,
    registers,
    collect: guarded('search_key_cursor', async function (this: Gauge) {
      this.set((await readLag()).reads);
    }),
  });
  new Gauge({
    name: `${METRIC_PREFIX}search_keys_lag_seconds`,
    help: 'How long the oldest read without search keys has waited since it reached the hub (0: none waits).',
    registers,
    collect: guarded('search_key_cursor', async function (this: Gauge) {
      this.set((await readLag()).seconds);
    }),
  });

  // The postings the sealer has not moved into blocks yet (docs/search.md "Postings sealed in blocks").
  new Gauge({
    name: `${METRIC_PREFIX}search_postings_unsealed_reads`,
    help: 'Reads keyed since the last seal, whose trigram postings are still one row each; the sealer seals at 100,000.',
    registers,
    collect: guarded('trigram_block_seal', async function (this: Gauge) {
      this.set(await readsPastSeal(deps.db));
    }),
  });

  const feed = createAlertLatencyFeed(deps.db, new Date());
  new Histogram({
    name: `${METRIC_PREFIX}alert_latency_seconds`,
    help: 'From a detection reaching the hub (received_at) to its alert row (created_at), for alerts created since this process started.',
    // The requirement is 1-5 s; measured here p95 ~19 ms (docs/performance.md).
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
    collect: guarded('alerts', async function (this: Histogram) {
      for (const seconds of await feed.next()) this.observe(seconds);
    }),
  });
}

/** `count(*)` that stops at QUEUE_COUNT_CAP + 1 rows: bounded by the cap, served by the (status, …) index. */
async function boundedCount(deps: ScrapeDeps, table: 'alert_queue' | 'notification_queue', status: string): Promise<number> {
  const [row] = await deps.db.sql<{ n: string | number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} WHERE status = $1 LIMIT $2) AS bounded`, [
    status,
    QUEUE_COUNT_CAP + 1,
  ]);
  return Math.min(QUEUE_COUNT_CAP, Number(row?.n ?? 0));
}
