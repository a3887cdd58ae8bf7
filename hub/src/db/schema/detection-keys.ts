import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { bigintString } from './columns.ts';

/**
 * Global idempotency for detections: (collectorId, detectionId) is unique across every
 * partition, which a partitioned table cannot enforce by itself. Ingest inserts here first
 * with ON CONFLICT DO NOTHING and stores only the detections it got rows back for.
 * detectionPk is unique too: alerts, legal holds and the alert queue reference it, and it
 * maps an id to its captured_at so a lookup by id touches one partition.
 * The FK (detection_pk, captured_at) -> detections is DEFERRABLE INITIALLY DEFERRED.
 */
export const detectionKeys = pgTable(
  'detection_keys',
  {
    collectorId: uuid('collector_id').notNull(),
    detectionId: text('detection_id').notNull(),
    detectionPk: bigintString('detection_pk').notNull().unique(),
    capturedAt: timestamp('captured_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.collectorId, t.detectionId] })],
);
