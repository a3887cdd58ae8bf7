import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';

/** Monotonic diagnostic counters (name -> count), kept across restarts. */
export const counters = sqliteTable('counters', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
});

/** Counter names the buffer itself bumps; runners add `camera_errors.<key>` and the like. */
export const BUFFER_COUNTERS = {
  duplicateId: 'duplicate_id',
  dedupeDropped: 'dedupe_dropped',
  dedupeDroppedBetterLate: 'dedupe_dropped_better_late',
  dedupeReplaced: 'dedupe_replaced',
  evictedAge: 'evicted_age',
  evictedImages: 'evicted_images',
  evictedDetections: 'evicted_detections',
  /** Dedupe memory given up to the disk cap once no detection was left to evict. */
  evictedReads: 'evicted_reads',
  /** Reads captured before the memory horizon (`maxCaptureAgeMs`): refused, not stored. */
  refusedTooOld: 'refused_too_old',
  uploadFailures: 'upload_failures',
  rejected: 'rejected',
  unreadable: 'unreadable_rows',
} as const;

export const COUNTERS_DDL = `
CREATE TABLE IF NOT EXISTS counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;
