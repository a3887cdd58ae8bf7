import { sql } from 'drizzle-orm';
import { index, pgTable, text, unique, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';
import { watchlistPriorities, watchlists } from './watchlists.ts';

export const watchlistEntries = pgTable(
  'watchlist_entries',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    watchlistId: uuid('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    plateNumber: varchar('plate_number', { length: 20 }).notNull(),
    /** OCR-normalized: what the matcher compares with detections.plate_normalized. */
    plateNormalized: varchar('plate_normalized', { length: 20 }).notNull(),
    notes: text('notes'),
    addedBy: uuid('added_by').references(() => users.id),
    addedAt: timestamptz('added_at').notNull().defaultNow(),
    /** From then on the entry matches nothing (0031; docs/watchlists.md "Expiry and priority"). */
    expiresAt: timestamptz('expires_at'),
    /** The entry's own priority (a feed ranks its plates); null: the list's (0031). */
    priority: text('priority', { enum: watchlistPriorities }),
  },
  (t) => [unique().on(t.watchlistId, t.plateNormalized), index('watchlist_entries_plate_idx').on(t.plateNormalized)],
);
