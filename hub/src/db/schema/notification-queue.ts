import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { alerts } from './alerts.ts';
import { bigintString, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const notificationChannels = ['telegram', 'push'] as const;
/** `suppressed`: not sent on purpose (muted, quiet hours, per-plate cooldown; the reason in last_error). */
export const notificationQueueStatuses = ['pending', 'processing', 'sent', 'failed', 'suppressed'] as const;

/**
 * One delivery of an alert to one chat (0006, 0019): unique per alert, user, channel and chat
 * (an expression index the migration holds). Written with SQL by hub/src/messaging/delivery.
 */
export const notificationQueue = pgTable('notification_queue', {
  id: bigintString('id')
    .primaryKey()
    .default(sql`nextval('notification_queue_id_seq')`),
  alertId: bigintString('alert_id')
    .notNull()
    .references(() => alerts.id),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  channel: text('channel', { enum: notificationChannels }).notNull(),
  status: text('status', { enum: notificationQueueStatuses }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  sentAt: timestamptz('sent_at'),
  nextRetryAt: timestamptz('next_retry_at').notNull().defaultNow(),
  lockedAt: timestamptz('locked_at'),
  chatId: bigintString('chat_id'),
  /** The telegram_messages row that carried (or is carrying) the item. */
  messageId: bigintString('message_id'),
  /** An earlier send may have arrived: the next message says it may be a repeat. */
  uncertain: boolean('uncertain').notNull().default(false),
  /** Later sightings at the same site folded into this delivery by the per-plate cooldown (0023). */
  foldedRepeats: integer('folded_repeats').notNull().default(0),
  /** Capture time of the latest of them. */
  lastFoldedAt: timestamptz('last_folded_at'),
});
