import { sql } from 'drizzle-orm';
import { boolean, integer, jsonb, pgTable, primaryKey, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';

/** Ordered lowest to highest; the values are our choice (docs/database.md). */
export const watchlistPriorities = ['low', 'medium', 'high', 'critical'] as const;
export const watchlistPrioritySchema = z.enum(watchlistPriorities);
export type WatchlistPriority = z.infer<typeof watchlistPrioritySchema>;

/** An ordinary list, or an ignore list whose plates never alert on the lists it is attached to (0041). */
export const watchlistKinds = ['watchlist', 'ignore'] as const;
export type WatchlistKind = (typeof watchlistKinds)[number];
/** `listed`: alert on a listed plate; `allow_list`: on any plate NOT listed, within the scope (0041). */
export const watchlistModes = ['listed', 'allow_list'] as const;
export type WatchlistMode = (typeof watchlistModes)[number];

/**
 * Where, which way and when a list alerts (0041; docs/watchlists.md "Scopes"). Stored as the
 * API takes it; checked by watchlists/scope-schema.ts. Absent parts do not narrow.
 */
export interface StoredScope {
  sites?: string[];
  collectors?: string[];
  cameras?: Array<{ collector_id: string; camera_id: string }>;
  direction?: 'entering' | 'exiting' | 'either';
  days?: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
  hours?: { from: string; to: string };
  time_zone?: string;
}

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
  kind: text('kind', { enum: watchlistKinds }).notNull().default('watchlist'),
  mode: text('mode', { enum: watchlistModes }).notNull().default('listed'),
  /** Null: everywhere, always, either way (0041). */
  scope: jsonb('scope').$type<StoredScope>(),
  /** Its alerts also go out on their own MQTT topic (0042; docs/mqtt.md "A list's own topic"). */
  mqttPublish: boolean('mqtt_publish').notNull().default(false),
  /** Soft delete (0011): alerts keep their watchlist; a deleted one is hidden and matches nothing. */
  deletedAt: timestamptz('deleted_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

/** Which ignore lists a list honours (0041): many to many. */
export const watchlistIgnoreLinks = pgTable(
  'watchlist_ignore_links',
  {
    watchlistId: uuid('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    ignoreListId: uuid('ignore_list_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.watchlistId, t.ignoreListId] })],
);
