import { and, eq, between, sql } from 'drizzle-orm';
import { detections } from './schema/detections.ts';
import { images } from './schema/images.ts';
import { recentReads } from './schema/recent-reads.ts';
import type { BufferDb } from './types.ts';

/**
 * Prepared queries of the insert path, built once per connection. Building and preparing
 * the SQL on every call cost about a third of an insert in a CPU profile; prepared, the
 * insert is bound by SQLite's own work. They run inside whatever transaction is open on the
 * connection (better-sqlite3 transactions are per connection).
 */
function build(db: BufferDb) {
  const p = sql.placeholder;
  return {
    recentSeqById: db
      .select({ seq: recentReads.seq })
      .from(recentReads)
      .where(eq(recentReads.detectionId, p('id')))
      .prepare(),
    bufferedSeqById: db
      .select({ seq: detections.seq })
      .from(detections)
      .where(eq(detections.detectionId, p('id')))
      .prepare(),
    keptRead: db
      .select({
        detectionId: recentReads.detectionId,
        seq: recentReads.seq,
        confidence: recentReads.confidence,
        state: detections.uploadState,
        attempts: detections.attempts,
      })
      .from(recentReads)
      .leftJoin(detections, and(eq(detections.seq, recentReads.seq), eq(detections.detectionId, recentReads.detectionId)))
      .where(
        and(
          eq(recentReads.cameraMac, p('mac')),
          eq(recentReads.plateText, p('plate')),
          between(recentReads.capturedMs, p('from'), p('to')),
          eq(recentReads.outcome, 'stored'),
        ),
      )
      .orderBy(sql`abs(${recentReads.capturedMs} - ${p('at')})`, recentReads.seq)
      .limit(1)
      .prepare(),
    insertDetection: db
      .insert(detections)
      .values({
        detectionId: p('detectionId'),
        cameraMac: p('cameraMac'),
        cameraId: p('cameraId'),
        plateText: p('plateText'),
        confidence: p('confidence'),
        capturedAt: p('capturedAt'),
        capturedMs: p('capturedMs'),
        receivedMs: p('receivedMs'),
        payload: p('payload'),
        sizeBytes: p('sizeBytes'),
      })
      .returning({ seq: detections.seq })
      .prepare(),
    upsertImage: db
      .insert(images)
      .values({ seq: p('seq'), kind: p('kind'), bytes: p('bytes'), sha256: p('sha256'), size: p('size') })
      .onConflictDoUpdate({
        target: [images.seq, images.kind],
        set: { bytes: sql`excluded.bytes`, sha256: sql`excluded.sha256`, size: sql`excluded.size` },
      })
      .prepare(),
    insertRead: db
      .insert(recentReads)
      .values({
        detectionId: p('detectionId'),
        cameraMac: p('cameraMac'),
        plateText: p('plateText'),
        capturedMs: p('capturedMs'),
        confidence: p('confidence'),
        seq: p('seq'),
        outcome: p('outcome'),
        seenMs: p('seenMs'),
      })
      .prepare(),
  };
}

export type InsertStatements = ReturnType<typeof build>;

const cache = new WeakMap<BufferDb, InsertStatements>();

export function insertStatements(db: BufferDb): InsertStatements {
  let statements = cache.get(db);
  if (!statements) {
    statements = build(db);
    cache.set(db, statements);
  }
  return statements;
}
