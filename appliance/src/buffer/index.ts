/** The appliance's durable detection buffer (docs/buffer.md). */
export { openBuffer, closeBuffer, limitsFrom, type OpenBufferOptions } from './open.ts';
export { insertDetection, insertDetections, seenDetectionIds, type IncomingDetection, type InsertResult, type InsertStatus } from './insert.ts';
export {
  nextBatch,
  markInFlight,
  markUploaded,
  releaseInFlight,
  recordFailure,
  DEFAULT_BATCH_LIMITS,
  type BatchLimits,
  type BufferedDetection,
  type RejectedItem,
} from './batch.ts';
export { listRejected, type RejectedRecord } from './dead-letter.ts';
export { enforceRetention, type RetentionResult } from './retention.ts';
export { pendingStats, oldestPendingAge, bufferStats, type PendingStats, type BufferStats, type CameraStats } from './stats.ts';
export { getCursor, setCursor } from './cursors.ts';
export { incrementCounter, readCounters } from './counters.ts';
export { BUFFER_COUNTERS } from './schema/counters.ts';
export type { StoredImage, StoredImages } from './images.ts';
export { DEFAULT_LIMITS, SYNCHRONOUS_MODES, type BufferLimits, type BufferLog, type Clock, type DetectionBuffer, type SynchronousMode } from './types.ts';
