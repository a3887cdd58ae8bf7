import { sqliteTable, integer, text, index } from 'drizzle-orm/sqlite-core';

/**
 * Dead letter: detections the hub rejected (retrying would be rejected again) or that could
 * not be read back. Metadata and reason only, no images; kept 7 days for diagnostics.
 */
export const rejected = sqliteTable(
  'rejected',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    detectionId: text('detection_id').notNull(),
    cameraMac: text('camera_mac').notNull(),
    payload: text('payload').notNull(),
    reason: text('reason').notNull(),
    receivedMs: integer('received_ms').notNull(),
    rejectedMs: integer('rejected_ms').notNull(),
  },
  (t) => [index('rejected_at').on(t.rejectedMs)],
);

export const REJECTED_DDL = `
CREATE TABLE IF NOT EXISTS rejected (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  detection_id TEXT NOT NULL,
  camera_mac TEXT NOT NULL,
  payload TEXT NOT NULL,
  reason TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  rejected_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rejected_at ON rejected (rejected_ms);
`;
