import { boolean, pgTable } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';

/**
 * The detection events' cursor (0032, docs/webhooks.md "Detection events"): one row, the
 * highest detection id whose `detection.stored` deliveries are queued. Written with SQL by
 * hub/src/webhooks/detection-events.ts.
 */
export const webhookDetectionCursor = pgTable('webhook_detection_cursor', {
  id: boolean('id').primaryKey().default(true),
  lastPk: bigintString('last_pk').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
});
