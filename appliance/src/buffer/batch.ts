import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { detectionSchema, type Detection } from '@alpr/shared/detection/schema';
import { detections } from './schema/detections.ts';
import { images as imagesTable } from './schema/images.ts';
import { BUFFER_COUNTERS } from './schema/counters.ts';
import { incrementCounter } from './counters.ts';
import { deadLetter } from './dead-letter.ts';
import type { StoredImages } from './images.ts';
import type { BufferDb, DetectionBuffer } from './types.ts';

/** Batch triggers: 50 detections or 5 MB (5 MiB here: the safe reading). */
export const DEFAULT_BATCH_LIMITS = { maxItems: 50, maxBytes: 5 * 1024 * 1024 } as const;
export interface BatchLimits {
  maxItems: number;
  maxBytes: number;
}

export interface BufferedDetection {
  seq: number;
  detection: Detection;
  images: StoredImages;
  /** Payload JSON + image bytes. */
  sizeBytes: number;
  receivedMs: number;
  attempts: number;
}

/** SQLite allows 32766 bound values; chunks keep any caller-sized id list safe. */
const ID_CHUNK = 500;

/**
 * The oldest pending detections (by seq: arrival order, so the backlog of an outage leaves
 * first), up to `maxItems` and `maxBytes`; a single item larger than `maxBytes` still goes
 * alone, or it would block the queue. Reads only, with one exception: a row whose payload no
 * longer parses goes to the dead letter instead of being offered forever.
 */
export function nextBatch(buffer: DetectionBuffer, limits: BatchLimits = DEFAULT_BATCH_LIMITS): BufferedDetection[] {
  const maxItems = Math.max(1, Math.floor(limits.maxItems));
  const { rows, imageRows } = buffer.db.transaction((tx) => {
    const candidates = tx
      .select({
        seq: detections.seq,
        detectionId: detections.detectionId,
        payload: detections.payload,
        sizeBytes: detections.sizeBytes,
        receivedMs: detections.receivedMs,
        attempts: detections.attempts,
      })
      .from(detections)
      .where(eq(detections.uploadState, 'pending'))
      .orderBy(asc(detections.seq))
      .limit(maxItems)
      .all();
    const chosen: typeof candidates = [];
    let bytes = 0;
    for (const row of candidates) {
      if (chosen.length > 0 && bytes + row.sizeBytes > limits.maxBytes) break;
      chosen.push(row);
      bytes += row.sizeBytes;
    }
    const seqs = chosen.map((row) => row.seq);
    const imageRows = seqs.length === 0 ? [] : tx.select().from(imagesTable).where(inArray(imagesTable.seq, seqs)).all();
    return { rows: chosen, imageRows };
  });

  const bySeq = new Map<number, StoredImages>();
  for (const image of imageRows) {
    const set = bySeq.get(image.seq) ?? {};
    set[image.kind] = { bytes: image.bytes, sha256: image.sha256, size: image.size };
    bySeq.set(image.seq, set);
  }
  const batch: BufferedDetection[] = [];
  for (const row of rows) {
    const detection = parsePayload(row.payload);
    if (detection === undefined) {
      buffer.log.error({ seq: row.seq, detection_id: row.detectionId }, 'buffer: unreadable payload moved to dead letter');
      deadLetter(buffer, [{ detectionId: row.detectionId, reason: 'unreadable payload in buffer' }], BUFFER_COUNTERS.unreadable);
      continue;
    }
    batch.push({ seq: row.seq, detection, images: bySeq.get(row.seq) ?? {}, sizeBytes: row.sizeBytes, receivedMs: row.receivedMs, attempts: row.attempts });
  }
  return batch;
}

function parsePayload(payload: string): Detection | undefined {
  try {
    const parsed = detectionSchema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * pending -> in_flight just before sending. In-flight rows are not offered again and a
 * better read of the same pass no longer replaces them (the hub may already hold them).
 */
export function markInFlight(buffer: DetectionBuffer, detectionIds: readonly string[]): number {
  return inChunks(
    buffer,
    detectionIds,
    (tx, chunk) =>
      tx
        .update(detections)
        .set({ uploadState: 'in_flight' })
        .where(and(inArray(detections.detectionId, chunk), eq(detections.uploadState, 'pending')))
        .run().changes,
  );
}

/**
 * Deletes rows (images cascade). Call ONLY with ids the hub listed as `stored` or
 * `duplicate` in a 201/202: that is the end-to-end "no acknowledged detection is lost".
 */
export function markUploaded(buffer: DetectionBuffer, detectionIds: readonly string[]): number {
  return inChunks(buffer, detectionIds, (tx, chunk) => tx.delete(detections).where(inArray(detections.detectionId, chunk)).run().changes);
}

/** Network error, 401, 5xx, or an item the hub did not mention: back to pending for a retry. */
export function releaseInFlight(buffer: DetectionBuffer, detectionIds: readonly string[], error: string): number {
  return inChunks(buffer, detectionIds, (tx, chunk) => {
    const changes = tx
      .update(detections)
      .set({ uploadState: 'pending', attempts: sql`${detections.attempts} + 1`, lastError: error.slice(0, 500) })
      .where(and(inArray(detections.detectionId, chunk), eq(detections.uploadState, 'in_flight')))
      .run().changes;
    incrementCounter(tx, BUFFER_COUNTERS.uploadFailures, changes);
    return changes;
  });
}

export interface RejectedItem {
  detectionId: string;
  reason: string;
}

/**
 * Items the hub answered `rejected`: the same bytes would be rejected again, so they move to
 * the dead letter (kept 7 days for diagnostics) instead of blocking the queue forever.
 */
export function recordFailure(buffer: DetectionBuffer, items: readonly RejectedItem[]): number {
  return deadLetter(buffer, items, BUFFER_COUNTERS.rejected);
}

/** Runs `run` over id chunks in one IMMEDIATE transaction: all of a batch's ids or none. */
function inChunks(buffer: DetectionBuffer, ids: readonly string[], run: (tx: BufferDb, chunk: string[]) => number): number {
  if (ids.length === 0) return 0;
  return buffer.db.transaction(
    (tx) => {
      let total = 0;
      for (let i = 0; i < ids.length; i += ID_CHUNK) total += run(tx, ids.slice(i, i + ID_CHUNK));
      return total;
    },
    { behavior: 'immediate' },
  );
}
