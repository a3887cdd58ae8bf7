import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { CAMERA_OUTCOMES } from '@alpr/shared/protocol/collector';
import { bytea, timestamptz } from './columns.ts';
import { collectors } from './collectors.ts';

/**
 * vendor_a: ISAPI camera or NVR; vendor_b: Protect console; snapshot: an ordinary camera whose
 * frames the appliance reads itself (docs/ordinary-cameras.md; 0043).
 */
export const cameraVendors = ['vendor_a', 'vendor_b', 'snapshot'] as const;
export const cameraVendorSchema = z.enum(cameraVendors);
/** pull: the adapter polls the camera; push: the camera posts or streams to the collector. */
export const cameraModes = ['pull', 'push'] as const;
export const cameraModeSchema = z.enum(cameraModes);

/**
 * An ordinary camera's own settings (0043), in the appliance's field names so the push sends
 * them as they are (appliance/src/cameras/snapshot-config.ts). Absent: the appliance's default.
 */
export interface SnapshotSettings {
  snapshotUrl?: string;
  rtspUrl?: string;
  framesPerSecond?: number;
  region?: string;
  changeThreshold?: number;
  passageGapMs?: number;
}

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
    /** Sealed to the hub's credential escrow key (collectors/cameras/credential-escrow.ts); never stored in clear. */
    escrowedCredentials: bytea('escrowed_credentials'),
    timezone: text('timezone').notNull().default('UTC'),
    mode: text('mode', { enum: cameraModes }).notNull().default('pull'),
    channel: integer('channel').notNull().default(1),
    tls: boolean('tls'),
    sourceCameraIds: jsonb('source_camera_ids').$type<string[]>(),
    direction: jsonb('direction').$type<{ forward: string; reverse: string }>(),
    gpsLatitude: numeric('gps_latitude', { precision: 10, scale: 8 }),
    gpsLongitude: numeric('gps_longitude', { precision: 11, scale: 8 }),
    enabled: boolean('enabled').notNull().default(true),
    /** Ordinary cameras only (vendor `snapshot`); NULL for the other kinds. */
    snapshotSettings: jsonb('snapshot_settings').$type<SnapshotSettings>(),
    removedAt: timestamptz('removed_at'),
    lastOutcome: text('last_outcome', { enum: CAMERA_OUTCOMES }),
    lastOutcomeDetail: text('last_outcome_detail'),
    lastOutcomeAt: timestamptz('last_outcome_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('cameras_collector_idx').on(t.collectorId)],
);
