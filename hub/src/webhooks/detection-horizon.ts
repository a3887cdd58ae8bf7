/**
 * How far detection events may read without skipping a detection (docs/webhooks.md
 * "Detection events"). Detection ids come from one sequence, but batches commit out of id
 * order: a batch that drew ids 1-10 may commit after one that drew 11-20. A cursor moved to
 * 20 when the second commits would pass over the first for good. So the worker reads only up
 * to a horizon whose every detection is settled, committed or rolled back:
 *   1. read the sequence's last value L: every id <= L has been drawn;
 *   2. then note the writing transactions in progress in this database (the snapshot's xip
 *      list, kept to the transaction ids pg_stat_activity shows for sessions of this
 *      database). Ingest takes its transaction id before it draws an id (it locks the
 *      collector's chain head first, ingest/store-transaction.ts), so whoever drew an id <= L
 *      is either finished by now or on that list;
 *   3. once none of them is still in progress, every id <= L that will ever be visible is.
 * The sequence hands out one value at a time (no CACHE, 0004), so no session holds drawn
 * values above what L shows. An ingest batch holds its transaction for milliseconds; a
 * long writing transaction open at step 2 (a retention run) delays events until it ends.
 * Transaction ids are shared by every database of a server, so without the pg_stat_activity
 * filter another database's long transaction (another application on a shared server, or
 * another test file's database when tests run side by side) held this hub's events back.
 */
import type { DbSession } from '../db/session.ts';

export interface Horizon {
  /** Detections with ids up to this one are settled once `inFlight` have finished. */
  lastPk: string;
  /** Transaction ids (xid8, as text) that were writing when the horizon was taken. */
  inFlight: string[];
}

/** Two statements, in this order (see above): the sequence, then the running transactions. */
export async function takeHorizon(db: DbSession): Promise<Horizon> {
  const [seq] = await db.sql<{ last: string | null }>(`SELECT pg_sequence_last_value('detections_id_seq')::text AS last`);
  const [snap] = await db.sql<{ xip: string | string[] }>(
    // backend_xid is the 32-bit form of the xid8 in the snapshot: compared modulo 2^32.
    `SELECT COALESCE(json_agg(x::text), '[]'::json) AS xip FROM pg_snapshot_xip(pg_current_snapshot()) AS x
      WHERE (x::text::numeric % 4294967296)::text IN (
        SELECT backend_xid::text FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL)`,
  );
  const xip = typeof snap?.xip === 'string' ? (JSON.parse(snap.xip) as string[]) : (snap?.xip ?? []);
  return { lastPk: seq?.last ?? '0', inFlight: xip };
}

/** Whether every transaction on the horizon's list has committed or rolled back. */
export async function horizonSettled(db: DbSession, horizon: Horizon): Promise<boolean> {
  if (horizon.inFlight.length === 0) return true;
  const [row] = await db.sql<{ running: number }>(
    `SELECT count(*)::int AS running FROM json_array_elements_text($1::json) AS x WHERE pg_xact_status(x::xid8) = 'in progress'`,
    [JSON.stringify(horizon.inFlight)],
  );
  return Number(row?.running ?? 0) === 0;
}
