import { sql } from 'drizzle-orm';
import { index, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';
import { detectionKeys } from './detection-keys.ts';

/**
 * Preservation of a detection, kept apart from the write-once record. The FK (no cascade)
 * makes a held detection impossible to delete, retention included.
 */
export const legalHolds = pgTable(
  'legal_holds',
  {
    id: bigintString('id').primaryKey().default(sql`nextval('legal_holds_id_seq')`),
    detectionId: bigintString('detection_id')
      .notNull()
      .references(() => detectionKeys.detectionPk),
    caseId: varchar('case_id', { length: 100 }).notNull(),
    reason: text('reason').notNull(),
    holdUntil: timestamptz('hold_until'),
    releasedAt: timestamptz('released_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    createdBy: uuid('created_by'),
    releasedBy: uuid('released_by'),
  },
  (t) => [index('legal_holds_detection_idx').on(t.detectionId)],
);
