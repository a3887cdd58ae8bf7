import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { bytea, timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

export const cameraVendors = ['vendor_a', 'vendor_b'] as const;
export const cameraVendorSchema = z.enum(cameraVendors);
/** pull: the adapter polls the camera; push: the camera posts or streams to the collector. */
export const cameraModes = ['pull', 'push'] as const;
export const cameraModeSchema = z.enum(cameraModes);

export const cameras = pgTable(
  'cameras',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    collectorId: uuid('collector_id')
      .notNull()
      .references(() => collectors.id),
    vendor: text('vendor', { enum: cameraVendors }).notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    name: text('name').notNull(),
    /** Lowercase hex, no separators (CHECK in 0003); unique per collector when set. */
    mac: text('mac'),
    username: text('username'),
    /** nacl box sealed to collectors.public_key; never stored in clear. */
    sealedCredentials: bytea('sealed_credentials'),
    timezone: text('timezone').notNull().default('UTC'),
    mode: text('mode', { enum: cameraModes }).notNull().default('pull'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('cameras_collector_idx').on(t.collectorId)],
);
