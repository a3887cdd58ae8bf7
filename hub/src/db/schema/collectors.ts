import { sql } from 'drizzle-orm';
import { boolean, inet, integer, jsonb, numeric, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { bytea, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const collectorStatuses = ['pending', 'active', 'disabled', 'decommissioned'] as const;
export const collectorStatusSchema = z.enum(collectorStatuses);
export type CollectorStatus = z.infer<typeof collectorStatusSchema>;

/** The last heartbeat body, kept for the admin view. */
export const heartbeatSnapshotSchema = z.object({
  uptime_seconds: z.number().int(),
  queue_depth: z.number().int(),
  cameras_online: z.number().int(),
  config_version: z.number().int(),
});
export type HeartbeatSnapshot = z.infer<typeof heartbeatSnapshotSchema>;

export const collectors = pgTable('collectors', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  siteName: varchar('site_name', { length: 100 }).notNull(),
  siteAddress: varchar('site_address', { length: 255 }),
  /** numeric comes back as a string on both drivers: no float rounding of coordinates. */
  gpsLatitude: numeric('gps_latitude', { precision: 10, scale: 8 }),
  gpsLongitude: numeric('gps_longitude', { precision: 11, scale: 8 }),
  claimCode: varchar('claim_code', { length: 20 }).unique(),
  claimCodeExpiresAt: timestamptz('claim_code_expires_at'),
  claimedAt: timestamptz('claimed_at'),
  claimedFromIp: inet('claimed_from_ip'),
  apiKeyHash: varchar('api_key_hash', { length: 255 }),
  apiKeyPrefix: varchar('api_key_prefix', { length: 8 }),
  /** Unique when set (partial index in 0003): one collector per device serial. */
  hardwareId: varchar('hardware_id', { length: 100 }),
  osVersion: varchar('os_version', { length: 50 }),
  edgeVersion: varchar('edge_version', { length: 20 }),
  status: text('status', { enum: collectorStatuses }).notNull().default('pending'),
  /** Admin-set marker: the next claim binds new hardware to this same collector id. */
  pendingReplacement: boolean('pending_replacement').notNull().default(false),
  /** X25519 public key from the claim; centrally entered camera credentials are sealed to it. */
  publicKey: bytea('public_key'),
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  configVersion: integer('config_version').notNull().default(1),
  lastHeartbeatAt: timestamptz('last_heartbeat_at'),
  lastHeartbeat: jsonb('last_heartbeat').$type<HeartbeatSnapshot>(),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  createdBy: uuid('created_by').references(() => users.id),
  /** Set while status is `disabled` (docs/collectors.md "Suspend and resume"). */
  suspendedAt: timestamptz('suspended_at'),
  suspendReason: varchar('suspend_reason', { length: 500 }),
  /** When an admin marked the collector for replacement (pendingReplacement). */
  replacementRequestedAt: timestamptz('replacement_requested_at'),
  /** The site it belongs to (migration 0040); the default site unless an admin moved it. */
  siteId: uuid('site_id')
    .notNull()
    .default(sql`'00000000-0000-0000-0000-000000000001'::uuid`),
});
