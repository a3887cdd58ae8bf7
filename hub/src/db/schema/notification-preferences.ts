import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, time, unique, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';
import { watchlists } from './watchlists.ts';

export const notificationChannels = ['web', 'telegram', 'push'] as const;
export const notificationChannelSchema = z.enum(notificationChannels);

/**
 * watchlistId null = the user's default for the channel. Quiet hours are wall-clock
 * 'HH:MM:SS' strings in `timezone`. Unique NULLS NOT DISTINCT (user, watchlist, channel).
 */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    watchlistId: uuid('watchlist_id').references(() => watchlists.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: notificationChannels }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    quietHoursStart: time('quiet_hours_start'),
    quietHoursEnd: time('quiet_hours_end'),
    timezone: text('timezone').notNull().default('UTC'),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.userId, t.watchlistId, t.channel).nullsNotDistinct()],
);
