/**
 * Sealing and merging the trigram postings' blocks (migration 0046; docs/search.md "Postings
 * sealed in blocks"). The key builder writes fresh postings, one row each (key-builder.ts);
 * here they move into blocks of up to 1,024 postings a row, about a quarter of the disk:
 *   - seal: once the builder has keyed SEAL_READS reads past the last seal, every fresh
 *     posting up to the cursor becomes a level-0 block of its trigram, a few thousand
 *     trigrams a transaction;
 *   - merge: a trigram with MERGE_FANOUT blocks of one level has them rewritten as blocks of
 *     the next, up to TOP_LEVEL, so a posting is rewritten at most three times and a trigram
 *     ends with a few full blocks instead of thousands of small ones.
 * Each step is one database function call, one statement, one transaction: a kill loses at
 * most the step in progress, which the next pass does again (both are idempotent), and a
 * search in one snapshot sees each posting exactly once, fresh or sealed.
 */
import type { DbSession } from '../db/session.ts';
import { keyCursor, readsPastSeal } from '../db/unkeyed-reads.ts';

/** Postings a block holds at most: a search unpacks whole blocks, so a block stays small. */
export const BLOCK_CAP = 1024;
/** Blocks of one level a trigram collects before they merge into the next. */
export const MERGE_FANOUT = 8;
/** The level blocks stop merging at: 0 (sealed) to 3, ~18, ~150 and 1,024 postings on the bench's mix. */
export const TOP_LEVEL = 3;
/** Reads keyed past the last seal before the next (PostgreSQL): ~500,000 fresh postings, ~70 MB of rows, at most. */
export const SEAL_READS = 100_000;
/** Fresh postings a seal transaction moves at least (it takes whole trigrams): well under a second. */
export const SEAL_STEP = 50_000;
/** Trigrams a merge transaction takes. */
export const MERGE_STEP = 2_000;

export interface BlockOptions {
  sealReads?: number;
  sealStep?: number;
  mergeStep?: number;
  cap?: number;
  fanout?: number;
}

export interface BlockPassOutcome {
  /** Fresh postings moved into level-0 blocks. */
  sealed: number;
  /** Postings rewritten into blocks of a higher level. */
  merged: number;
}

/**
 * Seals every fresh posting up to the key cursor as it stands now, whole trigrams at a time
 * in key order, then records the seal. Returns the postings moved.
 */
export async function sealFresh(db: DbSession, now: Date, options: BlockOptions = {}): Promise<number> {
  const step = options.sealStep ?? SEAL_STEP;
  const cap = options.cap ?? BLOCK_CAP;
  const upTo = await keyCursor(db);
  let after: string | null = null;
  let moved = 0;
  for (;;) {
    // The step's last trigram: the one `step` postings on in key order (its postings all go
    // with it), or none, to the end.
    const edges: Array<{ trigram: string }> = await db.sql<{ trigram: string }>(
      `SELECT t.trigram FROM detection_trigrams t WHERE ($1::text IS NULL OR t.trigram > $1::text) ORDER BY t.trigram OFFSET $2 LIMIT 1`,
      [after, step],
    );
    const through: string | null = edges[0]?.trigram ?? null;
    const [row] = await db.sql<{ n: string }>(`SELECT trigram_blocks_seal($1::bigint, $2::text, $3::text, $4::int)::text AS n`, [upTo, after, through, cap]);
    moved += Number(row?.n ?? 0);
    if (through === null) break;
    after = through;
  }
  await db.sql(`UPDATE trigram_block_seal SET sealed_pk = greatest(sealed_pk, $1::bigint), sealed_at = $2::timestamptz WHERE id`, [upTo, now.toISOString()]);
  return moved;
}

/** Merges, level by level, every trigram holding `fanout` blocks of one level. Returns the postings rewritten. */
export async function mergeBlocks(db: DbSession, options: BlockOptions = {}): Promise<number> {
  const fanout = options.fanout ?? MERGE_FANOUT;
  const step = options.mergeStep ?? MERGE_STEP;
  const cap = options.cap ?? BLOCK_CAP;
  let merged = 0;
  for (let level = 0; level < TOP_LEVEL; level += 1) {
    for (;;) {
      const due = await db.sql<{ trigram: string }>(
        `SELECT b.trigram FROM trigram_blocks b WHERE b.level = $1 GROUP BY b.trigram HAVING count(*) >= $2 ORDER BY b.trigram LIMIT $3`,
        [level, fanout, step],
      );
      if (due.length === 0) break;
      const [row] = await db.sql<{ n: string }>(`SELECT trigram_blocks_merge($1::smallint, $2::text[], $3::int)::text AS n`, [
        level,
        due.map((d) => d.trigram),
        cap,
      ]);
      merged += Number(row?.n ?? 0);
    }
  }
  return merged;
}

/**
 * One pass: a seal when due, then the merges it made due. `mergeAnyway`: look for merges even
 * without a seal (a process's first pass, which finishes what a kill left).
 */
export async function maintainBlocks(db: DbSession, now: Date, options: BlockOptions & { mergeAnyway?: boolean } = {}): Promise<BlockPassOutcome> {
  const sealReads = options.sealReads ?? SEAL_READS;
  const sealed = (await readsPastSeal(db)) >= sealReads ? await sealFresh(db, now, options) : 0;
  const merged = sealed > 0 || options.mergeAnyway === true ? await mergeBlocks(db, options) : 0;
  return { sealed, merged };
}
