import { asc, inArray, lt, sql } from 'drizzle-orm';
import { detections } from './schema/detections.ts';
import { images } from './schema/images.ts';
import { recentReads } from './schema/recent-reads.ts';
import { BUFFER_COUNTERS } from './schema/counters.ts';
import { incrementCounter } from './counters.ts';
import { purgeRecentReads } from './insert.ts';
import { purgeRejected } from './dead-letter.ts';
import { databaseUsedBytes } from './stats.ts';
import type { DetectionBuffer } from './types.ts';

export interface RetentionResult {
  expired: number;
  evictedImages: number;
  evictedDetections: number;
  /** Remembered reads given up to the cap (only when no detection is left to evict). */
  evictedReads: number;
  purgedRecentReads: number;
  purgedRejected: number;
  /** Live database bytes after the pass. */
  usedBytes: number;
}

/**
 * Rows per transaction: short transactions keep insert latency flat while a big backlog is
 * trimmed, and let the cap loop re-measure the file as it goes.
 */
const CHUNK = 64;

/**
 * One retention pass (run it every minute or so):
 * 1. detections received more than 7 days ago leave, oldest first (buffer holds 7 days);
 * 2. over the disk cap, images go first, oldest first (a detection without images still
 *    proves a plate passed), then whole rows, oldest first, and last the oldest remembered reads;
 * 3. dedupe memory and dead letters past their keep time are purged;
 * 4. freed pages are handed back to the file system (auto_vacuum = INCREMENTAL).
 * Every eviction is counted: evicted data is data the hub never saw.
 */
export function enforceRetention(buffer: DetectionBuffer, now: Date = buffer.clock.now()): RetentionResult {
  const nowMs = now.getTime();
  const { limits } = buffer;
  const result: RetentionResult = {
    expired: 0,
    evictedImages: 0,
    evictedDetections: 0,
    evictedReads: 0,
    purgedRecentReads: 0,
    purgedRejected: 0,
    usedBytes: 0,
  };

  const expiredBefore = nowMs - limits.retentionMs;
  for (;;) {
    const moved = deleteOldestRows(buffer, expiredBefore, BUFFER_COUNTERS.evictedAge);
    result.expired += moved;
    if (moved < CHUNK) break;
  }

  let used = databaseUsedBytes(buffer);
  while (used > limits.diskCapBytes) {
    const evicted = evictOldestImages(buffer, used - limits.diskCapBytes);
    if (evicted === 0) break;
    result.evictedImages += evicted;
    used = databaseUsedBytes(buffer);
  }
  while (used > limits.diskCapBytes) {
    const evicted = deleteOldestRows(buffer, Number.MAX_SAFE_INTEGER, BUFFER_COUNTERS.evictedDetections, used - limits.diskCapBytes);
    if (evicted === 0) break;
    result.evictedDetections += evicted;
    used = databaseUsedBytes(buffer);
  }
  // Last resort: the dedupe memory (~200 bytes a read with its indexes) counts against the
  // cap too. Forgetting the oldest reads risks a duplicate at the hub; exceeding the cap
  // risks the device's disk. Only reached when every detection is already gone.
  while (used > limits.diskCapBytes) {
    const evicted = evictOldestReads(buffer);
    if (evicted === 0) break;
    result.evictedReads += evicted;
    used = databaseUsedBytes(buffer);
  }

  buffer.db.transaction(
    (tx) => {
      result.purgedRecentReads = purgeRecentReads(tx, nowMs - limits.recentReadsKeepMs);
      result.purgedRejected = purgeRejected(tx, nowMs - limits.rejectedKeepMs);
    },
    { behavior: 'immediate' },
  );

  if (result.expired + result.evictedImages + result.evictedDetections + result.evictedReads + result.purgedRecentReads + result.purgedRejected > 0) {
    buffer.sqlite.pragma('incremental_vacuum');
    buffer.log.info({ ...result, used_bytes: used }, 'buffer: retention pass');
  }
  if (result.evictedImages + result.evictedDetections + result.evictedReads > 0) {
    buffer.log.warn(
      {
        evicted_images: result.evictedImages,
        evicted_detections: result.evictedDetections,
        evicted_reads: result.evictedReads,
        cap_bytes: limits.diskCapBytes,
      },
      'buffer: disk cap reached, evicted oldest data',
    );
  }
  result.usedBytes = databaseUsedBytes(buffer);
  return result;
}

/**
 * Deletes up to CHUNK oldest rows (by seq) received before `beforeMs`, stopping once their
 * sizes add up to `enoughBytes` (the cap's excess); images cascade.
 */
function deleteOldestRows(buffer: DetectionBuffer, beforeMs: number, counter: string, enoughBytes = Infinity): number {
  return buffer.db.transaction(
    (tx) => {
      const rows = tx
        .select({ seq: detections.seq, bytes: detections.sizeBytes })
        .from(detections)
        .where(lt(detections.receivedMs, beforeMs))
        .orderBy(asc(detections.seq))
        .limit(CHUNK)
        .all();
      const seqs = takeUntil(rows, enoughBytes);
      if (seqs.length === 0) return 0;
      const deleted = tx.delete(detections).where(inArray(detections.seq, seqs)).run().changes;
      incrementCounter(tx, counter, deleted);
      return deleted;
    },
    { behavior: 'immediate' },
  );
}

/**
 * Drops all images of the oldest detections that still have any, just enough of them to
 * cover `enoughBytes` (at most CHUNK detections a transaction); the rows stay.
 */
function evictOldestImages(buffer: DetectionBuffer, enoughBytes: number): number {
  return buffer.db.transaction(
    (tx) => {
      const rows = tx
        .select({ seq: images.seq, bytes: sql<number>`sum(${images.size})`.mapWith(Number) })
        .from(images)
        .groupBy(images.seq)
        .orderBy(asc(images.seq))
        .limit(CHUNK)
        .all();
      const seqs = takeUntil(rows, enoughBytes);
      if (seqs.length === 0) return 0;
      const deleted = tx.delete(images).where(inArray(images.seq, seqs)).run().changes;
      // Keep size_bytes honest so the 5 MB batch trigger counts what is really left.
      tx.update(detections)
        .set({ sizeBytes: sql`length(CAST(${detections.payload} AS BLOB))` })
        .where(inArray(detections.seq, seqs))
        .run();
      incrementCounter(tx, BUFFER_COUNTERS.evictedImages, deleted);
      return deleted;
    },
    { behavior: 'immediate' },
  );
}

/** Reads are tiny: forget them 64 × 16 at a time so each pass frees whole pages. */
const READS_CHUNK = CHUNK * 16;

function evictOldestReads(buffer: DetectionBuffer): number {
  return buffer.db.transaction(
    (tx) => {
      const oldest = tx.select({ id: recentReads.detectionId }).from(recentReads).orderBy(asc(recentReads.seenMs)).limit(READS_CHUNK).all();
      if (oldest.length === 0) return 0;
      const deleted = tx
        .delete(recentReads)
        .where(
          inArray(
            recentReads.detectionId,
            oldest.map((r) => r.id),
          ),
        )
        .run().changes;
      incrementCounter(tx, BUFFER_COUNTERS.evictedReads, deleted);
      return deleted;
    },
    { behavior: 'immediate' },
  );
}

/** Oldest-first seqs whose bytes first reach `enoughBytes` (at least one when any). */
function takeUntil(rows: ReadonlyArray<{ seq: number; bytes: number }>, enoughBytes: number): number[] {
  const seqs: number[] = [];
  let freed = 0;
  for (const row of rows) {
    if (freed >= enoughBytes) break;
    seqs.push(row.seq);
    freed += row.bytes;
  }
  return seqs;
}
