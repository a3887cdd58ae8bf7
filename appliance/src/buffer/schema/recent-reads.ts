import { sqliteTable, integer, text, real, index } from 'drizzle-orm/sqlite-core';

/**
 * What happened to each read the buffer saw recently. `stored` is the read the buffer kept
 * for its 30 s cluster (its row may already be uploaded and deleted, which is why this table
 * exists); `replaced` lost to a better read of the same plate; `dropped` was a duplicate.
 */
export const READ_OUTCOMES = ['stored', 'replaced', 'dropped'] as const;
export type ReadOutcome = (typeof READ_OUTCOMES)[number];

/** Dedupe memory that outlives upload: one row per detection id seen, purged by age. */
export const recentReads = sqliteTable(
  'recent_reads',
  {
    detectionId: text('detection_id').primaryKey(),
    cameraMac: text('camera_mac').notNull(),
    plateText: text('plate_text').notNull(),
    capturedMs: integer('captured_ms').notNull(),
    confidence: real('confidence').notNull(),
    /** The buffered row that stands for this read's cluster (may be gone after upload). */
    seq: integer('seq').notNull(),
    outcome: text('outcome', { enum: READ_OUTCOMES }).notNull(),
    seenMs: integer('seen_ms').notNull(),
  },
  (t) => [index('recent_reads_plate').on(t.cameraMac, t.plateText, t.capturedMs), index('recent_reads_seen').on(t.seenMs)],
);

export const RECENT_READS_DDL = `
CREATE TABLE IF NOT EXISTS recent_reads (
  detection_id TEXT PRIMARY KEY,
  camera_mac TEXT NOT NULL,
  plate_text TEXT NOT NULL,
  captured_ms INTEGER NOT NULL,
  confidence REAL NOT NULL,
  seq INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('stored', 'replaced', 'dropped')),
  seen_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS recent_reads_plate ON recent_reads (camera_mac, plate_text, captured_ms);
CREATE INDEX IF NOT EXISTS recent_reads_seen ON recent_reads (seen_ms);
`;
