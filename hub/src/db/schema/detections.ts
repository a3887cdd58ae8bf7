import { sql } from 'drizzle-orm';
import { char, doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, unique, uuid, varchar } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { bigintString, timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

export const detectionDirections = ['entering', 'exiting', 'unknown'] as const;
export const detectionDirectionSchema = z.enum(detectionDirections);
export const vehicleTypes = ['car', 'truck', 'motorcycle', 'bus', 'van'] as const;
export const vehicleTypeSchema = z.enum(vehicleTypes);

/**
 * Stored detection records. Mirrors 0004_detections.sql, which is the source of truth: the
 * table is range-partitioned by month on captured_at, write-once (trigger + grants), and
 * idempotent globally through detection_keys. Insert the detection_keys row in the same
 * transaction (see docs/database.md, "Appending detections").
 */
export const detections = pgTable(
  'detections',
  {
    id: bigintString('id')
      .notNull()
      .default(sql`nextval('detections_id_seq')`),
    collectorId: uuid('collector_id')
      .notNull()
      .references(() => collectors.id),
    /** The appliance's camera identifier as sent (text: never rejected at ingest). */
    cameraId: text('camera_id').notNull(),
    /** The appliance's stable detection id: the idempotency key with collectorId. */
    detectionId: text('detection_id').notNull(),
    plateNumber: varchar('plate_number', { length: 20 }).notNull(),
    plateNormalized: varchar('plate_normalized', { length: 20 }).notNull(),
    confidence: doublePrecision('confidence').notNull(),
    /** Millisecond precision so it round-trips exactly through Date (hash chain input). */
    capturedAt: timestamp('captured_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    direction: text('direction', { enum: detectionDirections }).notNull().default('unknown'),
    vehicleType: text('vehicle_type', { enum: vehicleTypes }),
    color: text('color'),
    brand: text('brand'),
    model: text('model'),
    region: text('region'),
    latitude: numeric('latitude', { precision: 10, scale: 8 }),
    longitude: numeric('longitude', { precision: 11, scale: 8 }),
    fullImageHash: char('full_image_hash', { length: 64 }),
    cropImageHash: char('crop_image_hash', { length: 64 }),
    fullImageSize: integer('full_image_size'),
    cropImageSize: integer('crop_image_size'),
    chainSeq: bigintString('chain_seq').notNull(),
    prevHash: char('prev_hash', { length: 64 }).notNull(),
    recordHash: char('record_hash', { length: 64 }).notNull(),
    receivedAt: timestamptz('received_at').notNull().defaultNow(),
    /** Camera-side facts (0013): e.g. the camera's own time of a corrected capture. Outside the chain. */
    attributes: jsonb('attributes').$type<Record<string, string>>(),
    /** The camera's other readings of the plate (0026; docs/protocol.md "plate.candidates"), outside the hash chain. */
    plateCandidates: jsonb('plate_candidates').$type<Array<{ text: string; confidence?: number }>>(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.capturedAt] }),
    unique().on(t.collectorId, t.detectionId, t.capturedAt),
    index('detections_plate_captured_idx').on(t.plateNormalized, t.capturedAt),
    index('detections_collector_captured_idx').on(t.collectorId, t.capturedAt),
    index('detections_collector_chain_idx').on(t.collectorId, t.chainSeq),
  ],
);
