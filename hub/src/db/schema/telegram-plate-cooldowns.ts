import { pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';
import { watchlistPriorities } from './watchlists.ts';

/**
 * The per-plate cooldown per chat (0019, 0023): the sighting whose message opened the
 * window, its collector and the highest watchlist priority sent in it. Repeats at that
 * collector, no more urgent, are folded until `until`. Written with SQL by
 * hub/src/messaging/delivery/enqueue.ts.
 */
export const telegramPlateCooldowns = pgTable(
  'telegram_plate_cooldowns',
  {
    chatId: bigintString('chat_id').notNull(),
    plate: text('plate').notNull(),
    detectionId: bigintString('detection_id').notNull(),
    until: timestamptz('until').notNull(),
    /** NULL on windows opened before 0023: the next sighting is sent. */
    collectorId: uuid('collector_id'),
    priority: text('priority', { enum: watchlistPriorities }),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.plate] })],
);
