import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { alerts } from './alerts.ts';
import { bigintString, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const notificationQueueChannels = ['telegram', 'push'] as const;
export const notificationQueueChannelSchema = z.enum(notificationQueueChannels);
/** `suppressed` (migration 0019): not sent on purpose (muted, quiet hours, cooldown); the reason in last_error. */
export const notificationQueueStatuses = ['pending', 'processing', 'sent', 'failed', 'suppressed'] as const;
export const notificationQueueStatusSchema = z.enum(notificationQueueStatuses);

/**
 * One delivery per (alert, user, channel, chat) (docs/messaging.md "Delivery"); retries
 * 1 s, 5 s, 30 s then `failed`. The unique key is an expression index (migration 0019).
 */
export const notificationQueue = pgTable(
  'notification_queue',
  {
    id: bigintString('id').primaryKey().default(sql`nextval('notification_queue_id_seq')`),
    alertId: bigintString('alert_id')
      .notNull()
      .references(() => alerts.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: notificationQueueChannels }).notNull(),
    status: text('status', { enum: notificationQueueStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    sentAt: timestamptz('sent_at'),
    nextRetryAt: timestamptz('next_retry_at').notNull().defaultNow(),
    lockedAt: timestamptz('locked_at'),
    chatId: bigint('chat_id', { mode: 'bigint' }),
    messageId: bigint('message_id', { mode: 'bigint' }),
    uncertain: boolean('uncertain').notNull().default(false),
  },
  (t) => [
    index('notification_queue_status_retry_idx').on(t.status, t.nextRetryAt),
  ],
);
