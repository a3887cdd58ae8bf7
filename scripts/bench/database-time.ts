/**
 * Where the database's time went during one bench run, per batch: pg_stat_statements'
 * execution time of the bench database's top-level statements, grouped by what they do
 * (the batch's own statements, the key builder's, the sealer's, the alert worker's). On a
 * 2-core machine the bench's uploaders, the hub and PostgreSQL share the CPU, so work that
 * runs beside ingest (the key builder above all, when every plate is new) is throughput the
 * collectors do not get; this line says how much.
 *
 * Needs the server to preload the module: scripts/test-postgres.sh does in its production
 * mode (the one scripts/bench/production-postgres.sh starts) when the package ships it. Any
 * other server gets one line saying why there is no breakdown, and the bench goes on.
 */
import type postgres from 'postgres';

export interface DatabaseTime {
  /** Forgets what the bench database ran so far (other databases' figures are kept). */
  reset(): Promise<void>;
  /** `database per batch: 5.0 ms store, ...` for the statements since the last reset. */
  line(batches: number): Promise<string>;
}

/** What a statement is part of, by its text (the hub's own statements; anything else by its first words). */
const LABELS: ReadonlyArray<[RegExp, string]> = [
  [/^\s*WITH inserted AS/i, 'store'],
  [/INSERT INTO detection_keys/i, 'claim'],
  [/^\s*(COMMIT|END)\b/i, 'commit'],
  [/INSERT INTO plate_edit_keys/i, 'builder one-edit keys'],
  [/INSERT INTO detection_trigrams/i, 'builder postings'],
  [/trigram_blocks_(seal|merge|pack)/i, 'sealer'],
  [/alert_queue/i, 'alert worker'],
  [/image_locations/i, 'image index'],
  [/collector_chain_heads/i, 'chain head'],
];

const labelOf = (query: string): string => LABELS.find(([re]) => re.test(query))?.[1] ?? query.replace(/\s+/g, ' ').trim().split(' ').slice(0, 3).join(' ');

/** How many groups a line names; the rest are summed as `other`. */
const SHOWN = 7;

/** A DatabaseTime for `database` on the server `admin` connects to, or why there is none. */
export async function databaseTime(admin: postgres.Sql, database: string): Promise<DatabaseTime | string> {
  try {
    await admin.unsafe('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.unsafe('SELECT 1 FROM pg_stat_statements LIMIT 1');
  } catch (err) {
    return `no database time per statement: ${(err as Error).message.split('\n')[0]}`;
  }
  const [row] = await admin<{ oid: number }[]>`SELECT oid::int AS oid FROM pg_database WHERE datname = ${database}`;
  if (!row) return `no database time per statement: database ${database} not found`;
  const dbid = row.oid;
  return {
    async reset() {
      await admin`SELECT pg_stat_statements_reset(0, ${dbid}::oid, 0)`;
    },
    async line(batches) {
      const rows = await admin<{ query: string; ms: number }[]>`
        SELECT query, total_exec_time::float8 AS ms FROM pg_stat_statements WHERE dbid = ${dbid}::oid AND toplevel`;
      const byLabel = new Map<string, number>();
      for (const r of rows) {
        const label = labelOf(r.query);
        byLabel.set(label, (byLabel.get(label) ?? 0) + r.ms);
      }
      const sorted = [...byLabel].sort((a, b) => b[1] - a[1]);
      const total = sorted.reduce((sum, [, ms]) => sum + ms, 0);
      const other = sorted.slice(SHOWN).reduce((sum, [, ms]) => sum + ms, 0);
      const per = (ms: number) => (ms / Math.max(1, batches)).toFixed(2);
      const parts = sorted.slice(0, SHOWN).map(([label, ms]) => `${per(ms)} ${label}`);
      if (other > 0) parts.push(`${per(other)} other`);
      return `  database per batch: ${per(total)} ms = ${parts.join(', ')}`;
    },
  };
}
