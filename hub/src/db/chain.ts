import { eq } from 'drizzle-orm';
import { canonicalDetectionFields, computeRecordHash, GENESIS_HASH, type ChainLink } from './hash-chain.ts';
import { collectorChainHeads } from './schema/collector-chain-heads.ts';
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

/** What a head that would go backwards is called, here and by ingest's store statement, which checks it in SQL (ingest/batch-sql.ts). */
export const chainMovedBackwardsMessage = (collectorId: string): string => `chain head of collector ${collectorId} moved backwards`;

export const chainMovedBackwards = (collectorId: string): Error => new Error(chainMovedBackwardsMessage(collectorId));

/** Records `next` (the link after the last appended record) as the collector's head. */
export async function advanceChainHead(tx: DbSession, next: ChainLink): Promise<void> {
  if (!tx.inTransaction) throw new Error('advanceChainHead needs the transaction of nextChainLink');
  const rows = await tx.sql(advanceHeadUpdate({ collectorId: '$1', lastSeq: '$2', lastHash: '$3' }), [next.collectorId, ...advanceHeadValues(next)]);
  if (rows.length !== 1) throw chainMovedBackwards(next.collectorId);
}

export type ChainBreakReason = 'sequence' | 'prev_hash' | 'record_hash' | 'head';

export type ChainVerification =
  /**
   * `count` records checked; `from` the checkpoint they follow (absent: from genesis);
   * `removed` positions the non-hit tier emptied, passed by their tombstones (absent: none).
   */
  | { ok: true; count: number; from?: { chain_seq: number; record_hash: string }; removed?: number }
  | {
      ok: false;
      brokenAt: {
        chain_seq: number;
        /** Detection id (bigint as string); null when a record is missing at the tail or the position holds a tombstone. */
        id: string | null;
        /** The record_hash the chain requires at this position. */
        expected: string;
        /** The record_hash found (null when the record is missing). */
        actual: string | null;
        reason: ChainBreakReason;
      };
    };

const PAGE = 1000;

/** One position of a chain as the verifier walks it: a detection, or a tombstone (kind 't'). */
type ChainRow = {
  kind: 'd' | 't';
  id: string | null;
  collector_id: string;
  detection_id: string | null;
  camera_id: string | null;
  plate_number: string | null;
  plate_normalized: string | null;
  confidence: number | null;
  captured_at: Date | null;
  direction: string | null;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  chain_seq: string;
  prev_hash: string;
  record_hash: string;
};

/**
 * Recomputes a collector's chain from genesis, or from its newest retention checkpoint
 * (docs/retention.md), walking by chain_seq, and reports the first broken link: a gap or
 * duplicate in the sequence, a prev_hash that is not the previous record_hash, or a record
 * whose fields no longer hash to its record_hash. A position the non-hit tier emptied holds
 * a tombstone (ADR 0007): its prev_hash must be the previous record_hash, and the next
 * record is checked against its record_hash; its own fields are gone, so its own hash is
 * taken as recorded. Finally the walk must end where collector_chain_heads says (catches
 * records removed at the tail).
 */
export async function verifyChain(session: DbSession, collectorId: string): Promise<ChainVerification> {
  const [checkpoint] = await session.sql<{ chain_seq: string; record_hash: string }>(
    `SELECT chain_seq::text AS chain_seq, record_hash FROM chain_checkpoints WHERE collector_id = $1
     ORDER BY chain_checkpoints.chain_seq DESC LIMIT 1`,
    [collectorId],
  );
  const from = checkpoint ? { chain_seq: Number(checkpoint.chain_seq), record_hash: checkpoint.record_hash } : undefined;
  // Anything left at or before the checkpoint was meant to be gone: the walk starts at genesis
  // so that row shows up as a sequence break instead of being skipped. Tombstones at or
  // before it are vouched for by the checkpoint's hash and not walked.
  let prevHash = from?.record_hash ?? GENESIS_HASH;
  let expectedSeq = (from?.chain_seq ?? 0) + 1;
  const firstSeq = expectedSeq;
  let after = 0;
  let removed = 0;
  for (;;) {
    const page = await session.sql<ChainRow>(
      `SELECT * FROM (
         SELECT 'd' AS kind, d.id::text AS id, d.collector_id::text AS collector_id, d.detection_id, d.camera_id, d.plate_number,
                d.plate_normalized, d.confidence, d.captured_at, d.direction, d.full_image_hash, d.crop_image_hash,
                d.chain_seq, d.prev_hash, d.record_hash
           FROM detections d WHERE d.collector_id = $1 AND d.chain_seq > $2::bigint
         UNION ALL
         SELECT 't', NULL, t.collector_id::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, t.chain_seq, t.prev_hash, t.record_hash
           FROM chain_tombstones t WHERE t.collector_id = $1 AND t.chain_seq > GREATEST($2::bigint, $3::bigint)
       ) c ORDER BY c.chain_seq, c.kind LIMIT ${PAGE}`,
      [collectorId, String(after), String(from?.chain_seq ?? 0)],
    );
    for (const row of page) {
      const seq = Number(row.chain_seq);
      after = seq;
      let expected: string;
      if (row.kind === 't') expected = row.record_hash;
      else {
        expected = computeRecordHash(
          prevHash,
          canonicalDetectionFields({
            collectorId: row.collector_id,
            detectionId: row.detection_id ?? '',
            cameraId: row.camera_id ?? '',
            plateNumber: row.plate_number ?? '',
            plateNormalized: row.plate_normalized ?? '',
            confidence: Number(row.confidence),
            capturedAt: new Date(row.captured_at ?? Number.NaN),
            direction: row.direction ?? '',
            fullImageHash: row.full_image_hash,
            cropImageHash: row.crop_image_hash,
            chainSeq: expectedSeq,
          }),
        );
      }
      const reason: ChainBreakReason | null =
        seq !== expectedSeq ? 'sequence' : row.prev_hash !== prevHash ? 'prev_hash' : row.record_hash !== expected ? 'record_hash' : null;
      if (reason) {
        return { ok: false, brokenAt: { chain_seq: seq, id: row.id, expected, actual: row.record_hash, reason } };
      }
      if (row.kind === 't') removed += 1;
      prevHash = row.record_hash;
      expectedSeq += 1;
    }
    if (page.length < PAGE) break;
  }
  const count = expectedSeq - firstSeq - removed;
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
  return { ok: true, count, ...(from ? { from } : {}), ...(removed > 0 ? { removed } : {}) };
}
