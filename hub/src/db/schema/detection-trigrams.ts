import { pgTable, text, timestamp, uuid, varchar } from 'drizzle-orm/pg-core';
import { bigintString } from './columns.ts';

/**
 * Each sighting's plate trigrams in time order (0037): one row per distinct three-character
 * run of the plate, unique on (trigram, captured_at, id). Written after commit by the key builder
 * (hub/src/search/key-builder.ts, migration 0038), removed with their read by retention; read by pattern searches with one such run (hub/src/search/postings-page.ts).
 */
export const detectionTrigrams = pgTable('detection_trigrams', {
  trigram: text('trigram').notNull(),
  capturedAt: timestamp('captured_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  id: bigintString('id').notNull(),
  collectorId: uuid('collector_id').notNull(),
  plateNormalized: varchar('plate_normalized', { length: 20 }).notNull(),
});
