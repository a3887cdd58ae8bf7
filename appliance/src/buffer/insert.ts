import { eq, lt, sql } from 'drizzle-orm';
import { insertStatements, type InsertStatements } from './statements.ts';
import { detectionSchema, type Detection, type DetectionImages } from '@alpr/shared/detection/schema';
import { detections } from './schema/detections.ts';
import { images as imagesTable } from './schema/images.ts';
import { recentReads } from './schema/recent-reads.ts';
import { BUFFER_COUNTERS } from './schema/counters.ts';
import { incrementCounter } from './counters.ts';
import { decideDedupe, type KeptRead } from './dedupe.ts';
import { asBuffer, prepareImages, type PreparedImage } from './images.ts';
import { ApplianceError } from '../errors.ts';
import type { BufferDb, DetectionBuffer } from './types.ts';

/**
 * `refused`: captured before the memory horizon (`maxCaptureAgeMs`). Nothing is written but
 * a counter: the buffer could no longer tell such a read from one it already sent, so it
 * would risk a duplicate at the hub; a camera may still be acknowledged (resending it
 * would be refused again).
 */
export type InsertStatus = 'stored' | 'duplicate' | 'replaced' | 'refused';

/**
 * `seq` is the buffered row that now stands for this read (the kept one for duplicates;
 * 0 for a refused read).
 */
export interface InsertResult {
  status: InsertStatus;
  seq: number;
}

/** Purge `recent_reads` at most this often: a range delete per insert would be wasted work. */
const RECENT_PURGE_EVERY_MS = 5000;

interface KeptRow extends KeptRead {
  detectionId: string;
  seq: number;
}

/** One detection with its image bytes, as a runner hands it over. */
export interface IncomingDetection {
  detection: Detection;
  images?: DetectionImages;
}

/**
 * Buffers one detection with its images in ONE transaction. When it returns, the row is
 * committed (durable per the `synchronous` setting): only then may the camera be answered.
 * Dedupe (30 s per camera MAC + plate) keeps the best-confidence read; a detection_id
 * already seen is an idempotent re-delivery. docs/buffer.md "Dedupe" has the rules.
 */
export function insertDetection(buffer: DetectionBuffer, detection: Detection, images: DetectionImages = {}): InsertResult {
  const [result] = insertDetections(buffer, [{ detection, images }]);
  if (!result) throw new Error('insertDetections returned no result for one item');
  return result;
}

/**
 * Group commit: several detections (a pull runner's page, a burst of pushes) in ONE
 * transaction, so one fsync covers all of them at synchronous=FULL (docs/buffer.md,
 * "Durability"). All are validated first: one invalid detection writes nothing. Results
 * are in input order; later items dedupe against earlier ones of the same group.
 */
export function insertDetections(buffer: DetectionBuffer, items: readonly IncomingDetection[]): InsertResult[] {
  if (buffer.readonly) throw new ApplianceError('read_only', 'buffer opened read-only');
  if (items.length === 0) return [];
  const nowMs = buffer.clock.now().getTime();
  const staged = items.map((item, index) => stage(item, nowMs, index));
  const st = insertStatements(buffer.db);
  return buffer.db.transaction(
    (tx) => {
      purgeRecentReadsIfDue(buffer, tx, nowMs);
      return staged.map((item) => insertStaged(buffer, tx, st, item));
    },
    { behavior: 'immediate' },
  );
}

interface Staged {
  row: {
    detectionId: string;
    cameraMac: string;
    cameraId: string;
    plateText: string;
    confidence: number;
    capturedAt: string;
    capturedMs: number;
    payload: string;
    sizeBytes: number;
  };
  read: { detectionId: string; cameraMac: string; plateText: string; capturedMs: number; confidence: number; seenMs: number };
  images: PreparedImage[];
  receivedMs: number;
}

/** Validation, hashing and JSON happen before the transaction, so it stays short. */
function stage(item: IncomingDetection, nowMs: number, index: number): Staged {
  const parsed = detectionSchema.safeParse(item.detection);
  if (!parsed.success) throw new ApplianceError('invalid_detection', `detection ${index}: ${parsed.error.message}`);
  const d = parsed.data;
  const capturedMs = Date.parse(d.timestamp);
  const images = prepareImages(item.images ?? {});
  const payload = JSON.stringify(d);
  const sizeBytes = Buffer.byteLength(payload) + images.reduce((sum, image) => sum + image.size, 0);
  const common = { detectionId: d.detection_id, cameraMac: d.camera.mac, plateText: d.plate.text, capturedMs, confidence: d.plate.confidence };
  return {
    row: { ...common, cameraId: d.camera.id, capturedAt: d.timestamp, payload, sizeBytes },
    read: { ...common, seenMs: nowMs },
    images,
    receivedMs: nowMs,
  };
}

function insertStaged(buffer: DetectionBuffer, tx: BufferDb, st: InsertStatements, item: Staged): InsertResult {
  const { row, read, images: prepared } = item;
  if (row.capturedMs < item.receivedMs - buffer.limits.maxCaptureAgeMs) {
    incrementCounter(tx, BUFFER_COUNTERS.refusedTooOld);
    return { status: 'refused', seq: 0 };
  }
  const seenSeq = st.recentSeqById.get({ id: row.detectionId })?.seq ?? st.bufferedSeqById.get({ id: row.detectionId })?.seq;
  if (seenSeq !== undefined) {
    incrementCounter(tx, BUFFER_COUNTERS.duplicateId);
    return { status: 'duplicate', seq: seenSeq };
  }

  const kept = findKeptRead(st, row.cameraMac, row.plateText, row.capturedMs, buffer.limits.dedupeWindowMs);
  const decision = decideDedupe(kept, row.confidence);
  if (kept === undefined || decision === 'store') {
    const inserted = st.insertDetection.get({ ...row, receivedMs: item.receivedMs });
    if (!inserted) throw new Error('insert returned no seq');
    writeImages(st, inserted.seq, prepared);
    st.insertRead.run({ ...read, seq: inserted.seq, outcome: 'stored' });
    return { status: 'stored', seq: inserted.seq };
  }
  if (decision === 'replace') {
    // Same seq: the pass keeps its place in the upload queue and its arrival time (the
    // batch age trigger and retention count from the first read, not the best one).
    tx.update(detections)
      .set({ ...row, attempts: 0, lastError: null })
      .where(eq(detections.seq, kept.seq))
      .run();
    writeImages(st, kept.seq, prepared);
    refreshSize(tx, kept.seq);
    tx.update(recentReads).set({ outcome: 'replaced' }).where(eq(recentReads.detectionId, kept.detectionId)).run();
    st.insertRead.run({ ...read, seq: kept.seq, outcome: 'stored' });
    incrementCounter(tx, BUFFER_COUNTERS.dedupeReplaced);
    return { status: 'replaced', seq: kept.seq };
  }
  st.insertRead.run({ ...read, seq: kept.seq, outcome: 'dropped' });
  incrementCounter(tx, decision === 'drop' ? BUFFER_COUNTERS.dedupeDropped : BUFFER_COUNTERS.dedupeDroppedBetterLate);
  return { status: 'duplicate', seq: kept.seq };
}

/**
 * The kept read of this MAC + plate nearest in capture time within the window. Only kept
 * reads anchor the window, so a car idling at a gate yields one detection per window,
 * not one forever.
 */
function findKeptRead(st: InsertStatements, mac: string, plate: string, capturedMs: number, windowMs: number): KeptRow | undefined {
  const row = st.keptRead.get({ mac, plate, from: capturedMs - windowMs, to: capturedMs + windowMs, at: capturedMs });
  if (!row) return undefined;
  return { detectionId: row.detectionId, seq: row.seq, confidence: row.confidence, state: row.state ?? 'gone', sent: (row.attempts ?? 0) > 0 };
}

/** Upserts by kind: a replacing read overwrites the kinds it carries and keeps the others. */
function writeImages(st: InsertStatements, seq: number, prepared: PreparedImage[]): void {
  for (const image of prepared) st.upsertImage.run({ seq, kind: image.kind, bytes: asBuffer(image.bytes), sha256: image.sha256, size: image.size });
}

/** size_bytes = payload + images actually held (kept kinds included after a replace). */
function refreshSize(tx: BufferDb, seq: number): void {
  tx.update(detections)
    .set({
      sizeBytes: sql`length(CAST(${detections.payload} AS BLOB)) + coalesce((SELECT sum(${imagesTable.size}) FROM ${imagesTable} WHERE ${imagesTable.seq} = ${seq}), 0)`,
    })
    .where(eq(detections.seq, seq))
    .run();
}

function purgeRecentReadsIfDue(buffer: DetectionBuffer, tx: BufferDb, nowMs: number): void {
  if (Math.abs(nowMs - buffer.lastRecentPurgeMs) < RECENT_PURGE_EVERY_MS) return;
  purgeRecentReads(tx, nowMs - buffer.limits.recentReadsKeepMs);
  buffer.lastRecentPurgeMs = nowMs;
}

/**
 * Which of these detection ids the buffer has seen (buffered, or remembered with any
 * outcome). A runner skips those before fetching their images: a camera's old copy of a
 * read needs no second download, and the buffer would call it a duplicate anyway.
 */
export function seenDetectionIds(buffer: DetectionBuffer, ids: readonly string[]): Set<string> {
  const st = insertStatements(buffer.db);
  const seen = new Set<string>();
  for (const id of new Set(ids)) {
    if (st.recentSeqById.get({ id }) !== undefined || st.bufferedSeqById.get({ id }) !== undefined) seen.add(id);
  }
  return seen;
}

export function purgeRecentReads(db: BufferDb, olderThanMs: number): number {
  return db.delete(recentReads).where(lt(recentReads.seenMs, olderThanMs)).run().changes;
}
