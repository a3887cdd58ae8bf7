/**
 * How searches cover the detections whose keys are not built yet (docs/search.md "Keys built
 * after commit"). The key builder (hub/src/search/key-builder.ts) keys detections in id order behind a
 * durable cursor: every detection with id <= the cursor has its trigram postings and its
 * plate's one-edit keys, none above it has postings. So a search that reads keys takes the
 * cursor once and splits on it:
 *   - up to the cursor, the keys (postings with `t.id <= cursor`);
 *   - past it, `detections` itself through its plain indexes (`d.id > cursor`): the reads of
 *     the last second or two, or of the builder's whole backlog if it is stopped.
 * Both sides use the same value, so a read is counted once even when the builder moves the
 * cursor between the statements (keys are never removed below it, except with their read by
 * retention). A read is found by every mode as soon as its batch is acknowledged; results
 * never depend on the builder's lag, only the cost of the second side does.
 */
import type { StatementSession } from './session.ts';

/** The cursor as a scalar subquery, for a statement that reads it and the keys in one snapshot. */
export const KEY_CURSOR_SQL = `(SELECT last_pk FROM search_key_cursor WHERE id)`;

/** Where the builder stands: every detection with id <= this has its keys, none above it. */
export async function keyCursor(db: StatementSession): Promise<string> {
  const [row] = await db.sql<{ last_pk: string }>(`SELECT last_pk::text AS last_pk FROM search_key_cursor WHERE id`);
  return row?.last_pk ?? '0';
}

/**
 * The distinct plates of the detections not keyed yet, as a statement fragment with the column
 * `plate_normalized`, narrowed by `where` (conditions on `u`, detections: a one-edit search's
 * lengths, a retro-hunt's days). One-edit searches and retro-hunts add them to the plates
 * their edit keys found, and check each like those.
 */
export function unkeyedPlatesSql(where?: string): string {
  return `SELECT DISTINCT u.plate_normalized FROM detections u WHERE u.id > ${KEY_CURSOR_SQL}${where ? ` AND ${where}` : ''}`;
}

/** Reads counted past the cursor at most: a lag beyond this is shown as this (the count stays cheap). */
export const LAG_COUNT_CAP = 1_000_000;

export interface KeyLag {
  /** Reads stored and not keyed yet (capped at LAG_COUNT_CAP). */
  reads: number;
  /** How long the oldest of them has waited, by its received_at (0 when none waits). */
  seconds: number;
}

/** The key builder's lag (docs/search.md "Keys built after commit"): one statement, bounded by the lag itself. */
export async function keyLag(db: StatementSession, now: Date): Promise<KeyLag> {
  const [row] = await db.sql<{ reads: number; oldest: Date | string | null }>(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM detections d WHERE d.id > c.last_pk LIMIT ${LAG_COUNT_CAP}) AS x) AS reads,
            (SELECT d.received_at FROM detections d WHERE d.id > c.last_pk ORDER BY d.id LIMIT 1) AS oldest
       FROM search_key_cursor c WHERE c.id`,
  );
  const reads = Number(row?.reads ?? 0);
  const oldest = row?.oldest ? new Date(row.oldest) : undefined;
  return { reads, seconds: reads > 0 && oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0 };
}

/**
 * Reads keyed past the last seal (migration 0046, hub/src/search/posting-blocks.ts): their
 * postings are still one row each. The sealer seals at 100,000; a figure that keeps growing
 * past that means it is not running, and the postings take their old room again.
 */
export async function readsPastSeal(db: StatementSession): Promise<number> {
  const [row] = await db.sql<{ behind: string }>(
    `SELECT greatest(c.last_pk - s.sealed_pk, 0)::text AS behind FROM search_key_cursor c CROSS JOIN trigram_block_seal s WHERE c.id AND s.id`,
  );
  return Number(row?.behind ?? 0);
}
