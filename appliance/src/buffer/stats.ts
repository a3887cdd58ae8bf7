import { count, eq, min, sql, sum } from 'drizzle-orm';
import { detections, UPLOAD_STATES, type UploadState } from './schema/detections.ts';
import { images } from './schema/images.ts';
import { rejected } from './schema/rejected.ts';
import { readCounters } from './counters.ts';
import type { DetectionBuffer } from './types.ts';

export interface PendingStats {
  count: number;
  /** Payload + image bytes waiting (the 5 MB trigger). */
  bytes: number;
  /** Arrival time (epoch ms) of the oldest pending detection, null when none. */
  oldestReceivedMs: number | null;
}

/** What the uplink's batch triggers look at: count, bytes and age of what waits. */
export function pendingStats(buffer: DetectionBuffer): PendingStats {
  const row = buffer.db
    .select({ count: count(), bytes: sum(detections.sizeBytes).mapWith(Number), oldest: min(detections.receivedMs) })
    .from(detections)
    .where(eq(detections.uploadState, 'pending'))
    .get();
  return { count: row?.count ?? 0, bytes: row?.bytes ?? 0, oldestReceivedMs: row?.oldest ?? null };
}

/** Milliseconds the oldest pending detection has waited, null when nothing waits. */
export function oldestPendingAge(buffer: DetectionBuffer): number | null {
  const oldest = pendingStats(buffer).oldestReceivedMs;
  return oldest === null ? null : Math.max(0, buffer.clock.now().getTime() - oldest);
}

export interface CameraStats {
  cameraMac: string;
  cameraId: string;
  pending: number;
  inFlight: number;
  bytes: number;
  oldestPendingReceivedMs: number | null;
}

export interface BufferStats {
  cameras: CameraStats[];
  states: Record<UploadState, number>;
  /** Dead-letter rows currently kept. */
  rejected: number;
  oldestPendingAgeMs: number | null;
  bytes: {
    /** Payload + images of buffered rows. */
    buffered: number;
    images: number;
    /** Database file pages in use (the disk cap measure) and in total (free pages included). */
    databaseUsed: number;
    databaseFile: number;
  };
  counters: Record<string, number>;
}

/** Database bytes in live pages: what the disk cap compares (free pages are reusable). */
export function databaseUsedBytes(buffer: DetectionBuffer): number {
  const pages = pragmaNumber(buffer, 'page_count');
  const free = pragmaNumber(buffer, 'freelist_count');
  return (pages - free) * pragmaNumber(buffer, 'page_size');
}

export function bufferStats(buffer: DetectionBuffer): BufferStats {
  return buffer.db.transaction((tx) => {
    const perCamera = tx
      .select({
        cameraMac: detections.cameraMac,
        cameraId: detections.cameraId,
        pending: sql<number>`sum(${detections.uploadState} = 'pending')`.mapWith(Number),
        inFlight: sql<number>`sum(${detections.uploadState} = 'in_flight')`.mapWith(Number),
        bytes: sum(detections.sizeBytes).mapWith(Number),
        oldestPending: sql<number | null>`min(CASE WHEN ${detections.uploadState} = 'pending' THEN ${detections.receivedMs} END)`,
      })
      .from(detections)
      .groupBy(detections.cameraMac, detections.cameraId)
      .orderBy(detections.cameraMac, detections.cameraId)
      .all();
    const states = Object.fromEntries(UPLOAD_STATES.map((state) => [state, 0])) as Record<UploadState, number>;
    for (const camera of perCamera) {
      states.pending += camera.pending;
      states.in_flight += camera.inFlight;
    }
    const imageBytes =
      tx
        .select({ bytes: sum(images.size).mapWith(Number) })
        .from(images)
        .get()?.bytes ?? 0;
    const rejectedCount = tx.select({ n: count() }).from(rejected).get()?.n ?? 0;
    const oldest = perCamera.reduce<number | null>(
      (acc, c) => (c.oldestPending === null ? acc : acc === null ? c.oldestPending : Math.min(acc, c.oldestPending)),
      null,
    );
    return {
      cameras: perCamera.map((c) => ({
        cameraMac: c.cameraMac,
        cameraId: c.cameraId,
        pending: c.pending,
        inFlight: c.inFlight,
        bytes: c.bytes ?? 0,
        oldestPendingReceivedMs: c.oldestPending,
      })),
      states,
      rejected: rejectedCount,
      oldestPendingAgeMs: oldest === null ? null : Math.max(0, buffer.clock.now().getTime() - oldest),
      bytes: {
        buffered: perCamera.reduce((acc, c) => acc + (c.bytes ?? 0), 0),
        images: imageBytes,
        databaseUsed: databaseUsedBytes(buffer),
        databaseFile: pragmaNumber(buffer, 'page_count') * pragmaNumber(buffer, 'page_size'),
      },
      counters: readCounters(buffer),
    };
  });
}

function pragmaNumber(buffer: DetectionBuffer, name: string): number {
  const value = buffer.sqlite.pragma(name, { simple: true });
  return typeof value === 'number' ? value : 0;
}
