import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';

/** Ordered lowest to highest; the values are our choice (docs/database.md). */
export const watchlistPriorities = ['low', 'medium', 'high', 'critical'] as const;
export const watchlistPrioritySchema = z.enum(watchlistPriorities);
export type WatchlistPriority = z.infer<typeof watchlistPrioritySchema>;

export const watchlists = pgTable('watchlists', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  createdBy: uuid('created_by')
    .notNull()
    .references(() => users.id),
  name: varchar('name', { length: 100 }).notNull(),
  description: text('description'),
  priority: text('priority', { enum: watchlistPriorities }).notNull().default('medium'),
  isActive: boolean('is_active').notNull().default(true),
  /** Match entries one confusable character away too (0011; docs/watchlists.md "Matching"). */
  ocrTolerant: boolean('ocr_tolerant').notNull().default(false),
  /** Match entries one substitution, insertion or deletion away, any character (0025; docs/watchlists.md). */
  forgiveOneMisread: boolean('forgive_one_misread').notNull().default(false),
  /** An alert counts as actionable only once an operator confirms it (0026; docs/alerts.md "Verification"). */
  verificationRequired: boolean('verification_required').notNull().default(true),
  /** Reads of this many days back are searched for a plate added by hand, 0 = none (0033; docs/watchlists.md "Retro-hunt"). */
  retroHuntDays: integer('retro_hunt_days').notNull().default(7),
  /** Soft delete (0011): alerts keep their watchlist; a deleted one is hidden and matches nothing. */
  deletedAt: timestamptz('deleted_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
