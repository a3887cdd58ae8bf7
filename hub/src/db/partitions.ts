import type { DbSession } from './session.ts';

/**
 * Creates the monthly detection partitions for the last 2 months through the next 3 months
 * around `now` (UTC months). The hub calls this at start and daily; partitions that exist
 * are left alone, so it is cheap. Returns how many partitions were created.
 *
 * Why 3 months ahead: a missed daily run (host down for weeks) must not push current rows
 * into the default partition. Why 2 back: late uploads from a collector that was offline.
 */
export async function ensureUpcomingPartitions(session: DbSession, now: Date): Promise<number> {
  const [row] = await session.sql<{ created: number }>(`SELECT ensure_detection_partitions($1::timestamptz - interval '2 months', 6) AS created`, [now]);
  return row?.created ?? 0;
}

/** Name of the monthly partition that holds `at` ('detections_y2026m11'). */
export function partitionNameFor(at: Date): string {
  const month = String(at.getUTCMonth() + 1).padStart(2, '0');
  return `detections_y${at.getUTCFullYear()}m${month}`;
}
