/**
 * VACUUM for the embedded database. PGlite runs PostgreSQL as one process without its
 * background workers, so autovacuum never comes: every row a queue settles, the sealer moves
 * or an upsert replaces stays behind as a dead row, and its index entries with it. A claim of
 * the alert queue walks past those entries (migration 0047), so on a hub that ran for weeks
 * each claim would read the whole history of the queue. Nor does ANALYZE come, so the planner
 * has no statistics for these tables and scans the queue in full to find its oldest open
 * items. On PostgreSQL autovacuum does both and the function does nothing.
 *
 * Only the tables whose rows are updated or deleted as the hub runs: the detections and
 * other write-once tables hold no dead rows, and a VACUUM of them would read every page of
 * every month while holding PGlite's one connection.
 */
import type { DbSession } from './session.ts';

/** The churned tables: queues, the fresh search postings the sealer empties, per-batch upserts. */
export const CHURNED_TABLES = [
  'alert_queue',
  'notification_queue',
  'webhook_deliveries',
  'detection_trigrams',
  'trigram_blocks',
  'collector_chain_heads',
  'search_key_cursor',
  'camera_read_hours',
  'camera_read_spans',
  'collector_load_minutes',
  'rate_limit_hits',
] as const;

/** How often the hub on PGlite runs it (start-workers.ts): ten minutes of dead rows is a few hundred index pages at most. */
export const EMBEDDED_VACUUM_MS = 10 * 60_000;

/** VACUUM (ANALYZE) of each churned table on PGlite, one statement at a time (ingest waits for one table, not all); nothing on PostgreSQL. */
export async function vacuumEmbedded(db: DbSession): Promise<number> {
  if (db.kind !== 'pglite') return 0;
  for (const table of CHURNED_TABLES) await db.sql(`VACUUM (ANALYZE) ${table}`);
  return CHURNED_TABLES.length;
}
