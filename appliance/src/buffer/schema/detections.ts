import { sqliteTable, integer, real, text, index } from 'drizzle-orm/sqlite-core';

/**
 * Upload states. `pending` waits for the uplink; `in_flight` is part of a batch being sent.
 * A row leaves the table when the hub lists it stored/duplicate (deleted) or rejected
 * (moved to `rejected`), so there is no `uploaded` state.
 */
export const UPLOAD_STATES = ['pending', 'in_flight'] as const;
export type UploadState = (typeof UPLOAD_STATES)[number];

/** One buffered detection. `seq` is the upload order: oldest first after an outage. */
export const detections = sqliteTable(
  'detections',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    detectionId: text('detection_id').notNull().unique(),
    cameraMac: text('camera_mac').notNull(),
    cameraId: text('camera_id').notNull(),
    plateText: text('plate_text').notNull(),
    confidence: real('confidence').notNull(),
    capturedAt: text('captured_at').notNull(),
    capturedMs: integer('captured_ms').notNull(),
    receivedMs: integer('received_ms').notNull(),
    /** The full common-format `Detection` as JSON (images travel in `images`). */
    payload: text('payload').notNull(),
    /** Payload length + image sizes: what this row adds to an upload (5 MB batch trigger). */
    sizeBytes: integer('size_bytes').notNull(),
    uploadState: text('upload_state', { enum: UPLOAD_STATES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [index('detections_state_seq').on(t.uploadState, t.seq), index('detections_received').on(t.receivedMs)],
);

export const DETECTIONS_DDL = `
CREATE TABLE IF NOT EXISTS detections (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  detection_id TEXT NOT NULL UNIQUE,
  camera_mac TEXT NOT NULL,
  camera_id TEXT NOT NULL,
  plate_text TEXT NOT NULL,
  confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  captured_at TEXT NOT NULL,
  captured_ms INTEGER NOT NULL,
  received_ms INTEGER NOT NULL,
  payload TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  upload_state TEXT NOT NULL DEFAULT 'pending' CHECK (upload_state IN ('pending', 'in_flight')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);
CREATE INDEX IF NOT EXISTS detections_state_seq ON detections (upload_state, seq);
CREATE INDEX IF NOT EXISTS detections_received ON detections (received_ms);
`;
