/**
 * The search keys of stored detections, built after commit (docs/search.md "Keys built after
 * commit"; migration 0038). Ingest no longer writes them: a page here keys the detections
 * after the cursor (search_key_cursor) up to a settled horizon (webhooks/detection-horizon.ts:
 * every id at or below it is committed or rolled back, so a batch that commits late is never
 * passed over), in one transaction:
 *   - their trigram postings (0037), one INSERT ... SELECT for the whole page;
 *   - the one-edit keys (0025) of their plates not keyed yet, one more statement;
 *   - the cursor moved to the page's last id.
 * A kill before the commit leaves keys and cursor as they were, and the page is built again;
 * after it, the page is done. Why a cursor and not a queue table: see 0038.
 */
import type { DbSession, StatementSession } from '../db/session.ts';
import { isUniqueViolation } from '../db/sql-errors.ts';

/**
 * 5,000 detections a transaction: about 30,000 postings in one statement (thousands of reads
 * per statement, not a round trip each), and the cursor row held well under a second, so a
 * search's wait on nothing and a kill's loss stay small.
 */
export const KEY_PAGE_SIZE = 5000;

export interface KeyPageOutcome {
  /** Another builder (the other hub process) holds the cursor: it does the work. */
  busy: boolean;
  /** Detections keyed by this page. */
  keyed: number;
  /** The cursor reached `upTo`. */
  done: boolean;
}

export interface KeyPageOptions {
  pageSize?: number;
  /** Called after the keys are written and before the cursor moves: a test aborts the page here. */
  beforeCursor?: (tx: DbSession) => Promise<void>;
}

/**
 * One page: the detections after the cursor, up to `upTo` (a settled horizon), keyed in one
 * transaction. Its inserts are plain ones: nothing after the cursor has keys (the cursor's row
 * lock leaves a page to one builder, and a plate already keyed is left out by its own probe,
 * editKeysOf). Written as `ON CONFLICT DO NOTHING`, each row cost a speculative insert, about
 * twice a plain one (docs/performance.md "Plain inserts in the key builder"). Should keys
 * after the cursor exist all the same (a cursor moved back by hand), the page fails on the
 * unique index, and is built again skipping what is there.
 */
export async function buildKeyPage(db: DbSession, upTo: string, now: Date, options: KeyPageOptions = {}): Promise<KeyPageOutcome> {
  try {
    return await keyPage(db, upTo, now, options, false);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return keyPage(db, upTo, now, options, true);
  }
}

async function keyPage(db: DbSession, upTo: string, now: Date, options: KeyPageOptions, skipExisting: boolean): Promise<KeyPageOutcome> {
  const pageSize = options.pageSize ?? KEY_PAGE_SIZE;
  const onConflict = skipExisting ? 'ON CONFLICT DO NOTHING' : '';
  return db.transaction(async (tx) => {
    // SKIP LOCKED: the hub and `hub -- worker` both run a builder; one of them works.
    const [cursor] = await tx.sql<{ last_pk: string }>(`SELECT last_pk::text AS last_pk FROM search_key_cursor WHERE id FOR UPDATE SKIP LOCKED`);
    if (!cursor) return { busy: true, keyed: 0, done: false };
    const from = cursor.last_pk;
    if (BigInt(from) >= BigInt(upTo)) {
      await moveCursor(tx, from, now);
      return { busy: false, keyed: 0, done: true };
    }
    // Retention removes a detection's postings in its own transaction (0037): held off until
    // this page commits, so it never removes a row whose postings this page then writes.
    await tx.sql(`SELECT pg_advisory_xact_lock_shared(hashtext('retention_remove_detections'))`);
    const [edge] = await tx.sql<{ last: string | null; n: number }>(
      `SELECT max(p.id)::text AS last, count(*)::int AS n
         FROM (SELECT d.id FROM detections d WHERE d.id > $1::bigint AND d.id <= $2::bigint ORDER BY d.id LIMIT $3) p`,
      [from, upTo, pageSize],
    );
    const keyed = Number(edge?.n ?? 0);
    const full = keyed === pageSize;
    const last = full && edge?.last ? edge.last : upTo;
    if (keyed > 0) {
      // The reads already sealed in blocks (migration 0046, posting-blocks.ts) keep theirs
      // there; the unique (trigram, captured_at, id) forbids a double.
      await tx.sql(
        `INSERT INTO detection_trigrams (trigram, captured_at, id, collector_id, plate_normalized)
         SELECT g.trigram, d.captured_at, d.id, d.collector_id, d.plate_normalized
           FROM detections d CROSS JOIN LATERAL unnest(alpr_plate_trigrams(d.plate_normalized)) AS g (trigram)
          WHERE d.id > $1::bigint AND d.id <= $2::bigint AND d.id > (SELECT s.sealed_pk FROM trigram_block_seal s WHERE s.id)
          ORDER BY 1, 2, 3
         ${onConflict}`,
        [from, last],
      );
      const plates = `SELECT DISTINCT d.plate_normalized FROM detections d WHERE d.id > $1::bigint AND d.id <= $2::bigint`;
      await tx.sql(editKeysOf(plates, skipExisting), [from, last]);
    }
    if (options.beforeCursor) await options.beforeCursor(tx);
    await moveCursor(tx, last, now);
    return { busy: false, keyed, done: !full };
  });
}

/**
 * The statement that writes the one-edit keys (0025) of the plates `platesQuery` selects (one
 * column, `plate_normalized`). Per distinct plate, as 0025: a plate already keyed costs one
 * probe of its own key, made once per plate before its keys are spelled out (OFFSET 0 keeps
 * the planner from folding the probe back into the 8-9 rows of each plate; probed per key
 * row, 1,000 new plates took 92-105 ms against 61-65 ms, docs/performance.md). The one
 * DISTINCT drops a deletion spelled twice (`AAB` without either `A`). The builder gives it a
 * page's plates; the recall test its corpus. A plate's keys are written
 * together, never removed, so the probe leaves out every plate with any: no conflict is left
 * for `ON CONFLICT` to settle, unless `skipExisting` (buildKeyPage's second try) asks for it.
 */
export function editKeysOf(platesQuery: string, skipExisting = false): string {
  return `INSERT INTO plate_edit_keys (edit_key, plate_normalized)
         SELECT DISTINCT k.edit_key, c.plate_normalized
           FROM (SELECT n.plate_normalized, alpr_confusion_key(n.plate_normalized) AS key
                   FROM (${platesQuery}) n
                  WHERE NOT EXISTS (SELECT 1 FROM plate_edit_keys e
                                     WHERE e.edit_key = alpr_confusion_key(n.plate_normalized) AND e.plate_normalized = n.plate_normalized)
                 OFFSET 0) c
           CROSS JOIN LATERAL (
             SELECT c.key AS edit_key
             UNION ALL
             SELECT overlay(c.key PLACING '' FROM i FOR 1) FROM generate_series(1, char_length(c.key)) AS i
           ) k
          ORDER BY 1, 2
         ${skipExisting ? 'ON CONFLICT DO NOTHING' : ''}`;
}

async function moveCursor(tx: StatementSession, to: string, now: Date): Promise<void> {
  await tx.sql(`UPDATE search_key_cursor SET last_pk = $1::bigint, updated_at = $2::timestamptz WHERE id`, [to, now.toISOString()]);
}
