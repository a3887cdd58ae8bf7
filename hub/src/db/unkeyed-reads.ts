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
