import type { DbSession } from '../db/session.ts';

/**
 * Detection-to-alert latencies read from the database at scrape time, so alerts raised by a
 * worker in another process (`npm run hub -- worker`) count too. A cursor on alerts.id
 * makes each alert observed once per hub process; the first read starts at the process's
 * start time (alerts_created_idx), later reads at the cursor (the primary key).
 */
export interface AlertLatencyFeed {
  /** Seconds from received_at to the alert's created_at, for alerts not yet read. */
  next(): Promise<number[]>;
}

/** At most this many alerts per scrape: a backlog is read over the next scrapes, oldest first. */
export const ALERTS_PER_SCRAPE = 10_000;

export function createAlertLatencyFeed(db: DbSession, since: Date): AlertLatencyFeed {
  let cursor: string | undefined;
  return {
    next: async () => {
      const where = cursor === undefined ? 'a.created_at >= $1' : 'a.id > $1';
      const rows = await db.sql<{ id: string; seconds: string | number }>(
        `SELECT a.id::text AS id, GREATEST(0, EXTRACT(EPOCH FROM a.created_at - d.received_at)) AS seconds
           FROM alerts a
           JOIN detection_keys k ON k.detection_pk = a.detection_id
           JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
          WHERE ${where}
          ORDER BY a.id
          LIMIT ${ALERTS_PER_SCRAPE}`,
        [cursor ?? since.toISOString()],
      );
      const last = rows[rows.length - 1];
      if (last) cursor = last.id;
      return rows.map((r) => Number(r.seconds));
    },
  };
}
