import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, uuid } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const telegramLinks = pgTable(
  'telegram_links',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Telegram chat ids exceed 32 bits: bigint, surfaced as a string. */
    chatId: bigintString('chat_id').notNull().unique(),
    linkedAt: timestamptz('linked_at').notNull().defaultNow(),
    isActive: boolean('is_active').notNull().default(true),
    mutedUntil: timestamptz('muted_until'),
    lastDeliveryAt: timestamptz('last_delivery_at'),
  },
  (t) => [index('telegram_links_user_idx').on(t.userId)],
);
