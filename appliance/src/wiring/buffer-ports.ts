import { sql } from 'drizzle-orm';
import type { DetectionImages } from '@alpr/shared/detection/schema';
import {
  getCursor,
  insertDetection,
  markInFlight,
  markUploaded,
  nextBatch,
  pendingStats,
  recordFailure,
  releaseInFlight,
  seenDetectionIds,
  setCursor,
  type DetectionBuffer,
} from '../buffer/index.ts';
import type { CursorStore, DetectionSink, SinkItem } from '../cameras/ports.ts';
import type { BufferedItem, BufferedItemId, UplinkBufferPort } from '../uplink/ports.ts';

/**
 * Adapters from the SQLite buffer to the ports the uplink and the camera runners declare.
 * Rows handed to the uplink are marked in flight (so a better read of the same plate no
 * longer replaces a row the hub may already hold) and go back to pending on `release`.
 */
export function uplinkPortFor(buffer: DetectionBuffer): UplinkBufferPort {
  return {
    pendingStats() {
      const stats = pendingStats(buffer);
      const cameraIds = buffer.db
        .all<{ camera_id: string }>(sql`SELECT DISTINCT camera_id FROM detections WHERE upload_state = 'pending'`)
        .map((row) => row.camera_id);
      return { ...stats, cameraIds };
    },
    nextBatch(limits) {
      const rows = nextBatch(buffer, limits);
      markInFlight(
        buffer,
        rows.map((row) => row.detection.detection_id),
      );
      return rows.map((row): BufferedItem => {
        const images: DetectionImages = {};
        for (const [kind, image] of Object.entries(row.images)) {
          if (image) images[kind as keyof DetectionImages] = image.bytes;
        }
        return { id: row.detection.detection_id, detection: row.detection, images, receivedAtMs: row.receivedMs };
      });
    },
    markUploaded(ids) {
      markUploaded(buffer, ids.map(String));
    },
    markRejected(id: BufferedItemId, reason: string) {
      recordFailure(buffer, [{ detectionId: String(id), reason }]);
    },
    release(ids, reason) {
      releaseInFlight(buffer, ids.map(String), reason);
    },
  };
}

/** Bytes of one committed detection, for the intake meter (disk-cap forecast). */
export interface StoredSizes {
  imageBytes: number;
  metadataBytes: number;
}

/**
 * The camera runners' sink: resolves once the buffer transaction has committed. `onStored`
 * hears every insert that changed the buffer (stored, or a better read replacing one).
 */
export function sinkFor(buffer: DetectionBuffer, onStored: (sizes: StoredSizes, item: SinkItem) => void): DetectionSink {
  return {
    accept(item) {
      const result = insertDetection(buffer, item.detection, item.images);
      if (result.status === 'stored' || result.status === 'replaced') {
        let imageBytes = 0;
        for (const image of Object.values(item.images)) imageBytes += image?.byteLength ?? 0;
        onStored({ imageBytes, metadataBytes: Buffer.byteLength(JSON.stringify(item.detection)) }, item);
      }
      return result.status;
    },
    seen: (ids) => seenDetectionIds(buffer, ids),
  };
}

export function cursorStoreFor(buffer: DetectionBuffer): CursorStore {
  return {
    get: (key) => getCursor(buffer, key),
    set: (key, value) => setCursor(buffer, key, value),
  };
}
