import { sql } from 'drizzle-orm';
import { index, pgTable, unique, uuid } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';
import { detectionKeys } from './detection-keys.ts';
import { watchlistEntries } from './watchlist-entries.ts';
import { watchlists } from './watchlists.ts';

/** One alert per (detection, watchlist): a matcher re-run never doubles an alert. */
export const alerts = pgTable(
  'alerts',
  {
    id: bigintString('id').primaryKey().default(sql`nextval('alerts_id_seq')`),
    detectionId: bigintString('detection_id')
      .notNull()
      .references(() => detectionKeys.detectionPk),
    watchlistId: uuid('watchlist_id')
      .notNull()
      .references(() => watchlists.id),
    watchlistEntryId: uuid('watchlist_entry_id').references(() => watchlistEntries.id, { onDelete: 'set null' }),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.detectionId, t.watchlistId), index('alerts_created_idx').on(t.createdAt)],
);
