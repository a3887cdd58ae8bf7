import { desc, eq, lt } from 'drizzle-orm';
import { detections } from './schema/detections.ts';
import { rejected } from './schema/rejected.ts';
import { incrementCounter } from './counters.ts';
import type { BufferDb, DetectionBuffer } from './types.ts';

export interface DeadLetterItem {
  detectionId: string;
  reason: string;
}

/**
 * Moves buffered rows to `rejected` (metadata + reason; images are dropped with the row) in
 * one transaction and counts them under `counter`. Ids no longer buffered are skipped.
 */
export function deadLetter(buffer: DetectionBuffer, items: readonly DeadLetterItem[], counter: string): number {
  if (items.length === 0) return 0;
  const rejectedMs = buffer.clock.now().getTime();
  return buffer.db.transaction(
    (tx) => {
      let moved = 0;
      for (const item of items) {
        const row = tx
          .select({ detectionId: detections.detectionId, cameraMac: detections.cameraMac, payload: detections.payload, receivedMs: detections.receivedMs })
          .from(detections)
          .where(eq(detections.detectionId, item.detectionId))
          .get();
        if (!row) continue;
        tx.insert(rejected)
          .values({ ...row, reason: item.reason.slice(0, 1000), rejectedMs })
          .run();
        tx.delete(detections).where(eq(detections.detectionId, item.detectionId)).run();
        moved += 1;
      }
      incrementCounter(tx, counter, moved);
      return moved;
    },
    { behavior: 'immediate' },
  );
}

export function purgeRejected(db: BufferDb, olderThanMs: number): number {
  return db.delete(rejected).where(lt(rejected.rejectedMs, olderThanMs)).run().changes;
}

export interface RejectedRecord {
  detectionId: string;
  cameraMac: string;
  reason: string;
  receivedMs: number;
  rejectedMs: number;
}

/** Newest first, for the diagnostics page. */
export function listRejected(buffer: DetectionBuffer, limit = 100): RejectedRecord[] {
  return buffer.db
    .select({
      detectionId: rejected.detectionId,
      cameraMac: rejected.cameraMac,
      reason: rejected.reason,
      receivedMs: rejected.receivedMs,
      rejectedMs: rejected.rejectedMs,
    })
    .from(rejected)
    .orderBy(desc(rejected.id))
    .limit(limit)
    .all();
}
