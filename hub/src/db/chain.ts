import { and, asc, eq, gt } from 'drizzle-orm';
import { canonicalDetectionFields, computeRecordHash, GENESIS_HASH, type ChainLink } from './hash-chain.ts';
import { collectorChainHeads } from './schema/collector-chain-heads.ts';
import { detections } from './schema/detections.ts';
import type { DbSession, StatementSession } from './session.ts';

/*
 * Appending to a collector's chain, inside ONE transaction:
 *   const link = await nextChainLink(tx, collectorId);     // locks the head row
 *   const { records, next } = chainDetections(link, rows); // pure (hash-chain.ts)
 *   ...insert detection_keys + detections with records[i] chain columns...
 *   await advanceChainHead(tx, next);
 * The head row stays locked until commit, so a concurrent batch of the same collector
 * waits in nextChainLink and continues from the committed head: the chain stays linear.
 * chain_seq is a JS number here: 2^53 records per collector is out of reach (200/min
 * for 85 million years).
 */

/**
 * Locks the collector's chain head (creating it at genesis) and returns the next link. One
 * statement, one round trip: ON CONFLICT DO UPDATE takes the row lock and, when another
 * batch holds it, waits and returns the values that batch committed, as SELECT ... FOR
 * UPDATE would (READ COMMITTED re-reads the newest version after the wait).
 */
export async function nextChainLink(tx: StatementSession, collectorId: string): Promise<ChainLink> {
  if (!tx.inTransaction) throw new Error('nextChainLink needs a transaction: the head lock lasts until commit');
  const [head] = await tx.sql<{ last_seq: string; last_hash: string }>(
    `INSERT INTO collector_chain_heads AS h (collector_id) VALUES ($1)
     ON CONFLICT (collector_id) DO UPDATE SET last_seq = h.last_seq
     RETURNING last_seq, last_hash`,
    [collectorId],
    { prepare: true },
  );
  if (!head) throw new Error(`chain head of collector ${collectorId} vanished`);
  return { collectorId, chainSeq: Number(head.last_seq) + 1, prevHash: head.last_hash };
}

/**
 * The UPDATE that records a new head, with the placeholders it is given, so ingest can run
 * it inside its one storing statement (batch-sql.ts). Returns a row only if the head moved
 * forwards (or stayed): no row means the chain would go backwards.
 */
export function advanceHeadUpdate(p: { collectorId: string; lastSeq: string; lastHash: string }): string {
  return `UPDATE collector_chain_heads SET last_seq = ${p.lastSeq}, last_hash = ${p.lastHash}, updated_at = now()
     WHERE collector_id = ${p.collectorId} AND last_seq <= ${p.lastSeq} RETURNING collector_id`;
}

/** The values advanceHeadUpdate records for `next` (the link after the last appended record). */
export const advanceHeadValues = (next: ChainLink): [number, string] => [next.chainSeq - 1, next.prevHash];

export const chainMovedBackwards = (collectorId: string): Error => new Error(`chain head of collector ${collectorId} moved backwards`);

/** Records `next` (the link after the last appended record) as the collector's head. */
export async function advanceChainHead(tx: DbSession, next: ChainLink): Promise<void> {
  if (!tx.inTransaction) throw new Error('advanceChainHead needs the transaction of nextChainLink');
  const rows = await tx.sql(advanceHeadUpdate({ collectorId: '$1', lastSeq: '$2', lastHash: '$3' }), [next.collectorId, ...advanceHeadValues(next)]);
  if (rows.length !== 1) throw chainMovedBackwards(next.collectorId);
}

export type ChainBreakReason = 'sequence' | 'prev_hash' | 'record_hash' | 'head';

export type ChainVerification =
  /** `count` records checked; `from` the checkpoint they follow (absent: from genesis). */
  | { ok: true; count: number; from?: { chain_seq: number; record_hash: string } }
  | {
      ok: false;
      brokenAt: {
        chain_seq: number;
        /** Detection id (bigint as string); null when a record is missing at the tail. */
        id: string | null;
        /** The record_hash the chain requires at this position. */
        expected: string;
        /** The record_hash found (null when the record is missing). */
        actual: string | null;
        reason: ChainBreakReason;
      };
    };

const PAGE = 1000;

/**
 * Recomputes a collector's chain from genesis, or from its newest retention checkpoint
 * (docs/retention.md), walking by chain_seq, and reports the first broken link: a gap or
 * duplicate in the sequence, a prev_hash that is not the previous record_hash, or a record
 * whose fields no longer hash to its record_hash. Finally the walk must end where
 * collector_chain_heads says (catches records removed at the tail).
 */
export async function verifyChain(session: DbSession, collectorId: string): Promise<ChainVerification> {
  const [checkpoint] = await session.sql<{ chain_seq: string; record_hash: string }>(
    `SELECT chain_seq::text AS chain_seq, record_hash FROM chain_checkpoints WHERE collector_id = $1
     ORDER BY chain_checkpoints.chain_seq DESC LIMIT 1`,
    [collectorId],
  );
  const from = checkpoint ? { chain_seq: Number(checkpoint.chain_seq), record_hash: checkpoint.record_hash } : undefined;
  // Anything left at or before the checkpoint was meant to be gone: the walk starts at genesis
  // so that row shows up as a sequence break instead of being skipped.
  let prevHash = from?.record_hash ?? GENESIS_HASH;
  let expectedSeq = (from?.chain_seq ?? 0) + 1;
  const firstSeq = expectedSeq;
  for (;;) {
    const page = await session.db
      .select()
      .from(detections)
      .where(and(eq(detections.collectorId, collectorId), gt(detections.chainSeq, String(expectedSeq === firstSeq ? 0 : expectedSeq - 1))))
      .orderBy(asc(detections.chainSeq))
      .limit(PAGE);
    for (const row of page) {
      const expected = computeRecordHash(prevHash, canonicalDetectionFields({ ...row, chainSeq: expectedSeq }));
      const seq = Number(row.chainSeq);
      const reason: ChainBreakReason | null =
        seq !== expectedSeq ? 'sequence' : row.prevHash !== prevHash ? 'prev_hash' : row.recordHash !== expected ? 'record_hash' : null;
      if (reason) {
        return { ok: false, brokenAt: { chain_seq: seq, id: row.id, expected, actual: row.recordHash, reason } };
      }
      prevHash = row.recordHash;
      expectedSeq += 1;
    }
    if (page.length < PAGE) break;
  }
  const count = expectedSeq - firstSeq;
  const lastSeq = expectedSeq - 1;
  const [head] = await session.db.select().from(collectorChainHeads).where(eq(collectorChainHeads.collectorId, collectorId));
  const headSeq = head ? Number(head.lastSeq) : 0;
  const headHash = head?.lastHash ?? GENESIS_HASH;
  if (headSeq !== lastSeq || headHash !== prevHash) {
    return {
      ok: false,
      brokenAt: { chain_seq: headSeq, id: null, expected: headHash, actual: headSeq === lastSeq ? prevHash : null, reason: 'head' },
    };
  }
  return from ? { ok: true, count, from } : { ok: true, count };
}
