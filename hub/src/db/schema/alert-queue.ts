import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { bigintString, timestamptz } from './columns.ts';
import { detectionKeys } from './detection-keys.ts';

export const alertQueueStatuses = ['pending', 'processing', 'complete', 'failed'] as const;
export const alertQueueStatusSchema = z.enum(alertQueueStatuses);

/** Detections waiting for watchlist matching. Claimed with FOR UPDATE SKIP LOCKED. */
export const alertQueue = pgTable(
  'alert_queue',
  {
    id: bigintString('id').primaryKey().default(sql`nextval('alert_queue_id_seq')`),
    detectionId: bigintString('detection_id')
      .notNull()
      .references(() => detectionKeys.detectionPk),
    status: text('status', { enum: alertQueueStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    processedAt: timestamptz('processed_at'),
    /** Set on claim; the reaper returns items locked for too long. */
    lockedAt: timestamptz('locked_at'),
    nextRetryAt: timestamptz('next_retry_at').notNull().defaultNow(),
    /** The detection's normalized plate, so matching needs no join (NULL: queued by a hub before 0021). */
    plateNormalized: text('plate_normalized'),
  },
  (t) => [index('alert_queue_status_created_idx').on(t.status, t.createdAt)],
);
