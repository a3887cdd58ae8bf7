import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';
import type { CameraAck } from '@alpr/shared/protocol/collector';

/** Known types; the column is open text so a new command type needs no migration. */
export const knownCommandTypes = ['config_update', 'wipe', 'rotate_key', 'trust_hub_certificate'] as const;
export const commandStatuses = ['pending', 'delivered', 'acknowledged'] as const;
export const commandStatusSchema = z.enum(commandStatuses);
export const commandAckStatuses = ['success', 'failed', 'rolled_back'] as const;
export const commandAckStatusSchema = z.enum(commandAckStatuses);

export const commands = pgTable(
  'commands',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    collectorId: uuid('collector_id')
      .notNull()
      .references(() => collectors.id),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    /** Ed25519 signature by a hub_keys key. */
    signature: text('signature'),
    status: text('status', { enum: commandStatuses }).notNull().default('pending'),
    ackStatus: text('ack_status', { enum: commandAckStatuses }),
    ackDetail: text('ack_detail'),
    /** Per-camera answers of a config_update (docs/cameras-central.md). */
    ackCameras: jsonb('ack_cameras').$type<CameraAck[]>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    deliveredAt: timestamptz('delivered_at'),
    acknowledgedAt: timestamptz('acknowledged_at'),
    createdBy: uuid('created_by'),
  },
  (t) => [index('commands_collector_status_idx').on(t.collectorId, t.status, t.createdAt)],
);
