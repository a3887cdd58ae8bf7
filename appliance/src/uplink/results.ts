import type { BatchItemResult } from '@alpr/shared/protocol/batch';
import type { BufferedItemId } from './ports.ts';

/**
 * Maps the hub's per-item results back to buffer rows. "Acknowledged" means the hub lists
 * the item as `stored` or `duplicate` (committed there, now or by an earlier upload of the
 * same detection_id): only those rows may leave the buffer. `rejected` rows leave the
 * upload queue with the hub's reason. An item the hub does not mention, or mentions with
 * an index out of range or a detection_id that does not match what we sent at that index,
 * stays buffered and goes again with a later batch.
 */
export interface SentItem {
  id: BufferedItemId;
  detectionId: string;
}

export interface ResultSplit {
  stored: BufferedItemId[];
  duplicate: BufferedItemId[];
  rejected: { id: BufferedItemId; reason: string }[];
  /** Items left buffered: no usable result for them. */
  unacknowledged: BufferedItemId[];
  /** Results that named an unknown index or a different detection_id (a hub bug). */
  mismatched: number;
}

export function splitResults(sent: readonly SentItem[], results: readonly BatchItemResult[]): ResultSplit {
  const split: ResultSplit = { stored: [], duplicate: [], rejected: [], unacknowledged: [], mismatched: 0 };
  const seen = new Set<number>();
  for (const result of results) {
    const item = sent[result.index];
    const sameDetection = result.detection_id === null || result.detection_id === item?.detectionId;
    // The first result for an index wins; a second one would be a hub bug.
    if (!item || !sameDetection || seen.has(result.index)) {
      split.mismatched += 1;
      continue;
    }
    seen.add(result.index);
    if (result.status === 'stored') split.stored.push(item.id);
    else if (result.status === 'duplicate') split.duplicate.push(item.id);
    else split.rejected.push({ id: item.id, reason: result.reason ?? 'rejected by hub' });
  }
  sent.forEach((item, index) => {
    if (!seen.has(index)) split.unacknowledged.push(item.id);
  });
  return split;
}
