import { z } from 'zod';
import { DIRECTIONS } from '@alpr/shared/detection/schema';
import { isValidTimeZone } from '@alpr/shared/detection/time';
import { cameraModes, cameraVendors, type SnapshotSettings } from '../../db/schema/cameras.ts';
import { snapshotBodyFields, snapshotProblems } from './snapshot-input.ts';

/**
 * A camera as an admin enters it on the hub (docs/cameras-central.md "Fields"), in the wire's
 * snake_case. The fields are the camera record every site needs (vendor, host, port, username,
 * password) and what the appliance's setup page asks (mode, channel, time zone, name,
 * direction, position). Credentials are write-only: no route returns them.
 */
const direction = z.enum(DIRECTIONS);
/** A host name or an IP literal: letters, digits, dots, dashes, colons (IPv6), brackets. */
const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:\[\]-]+$/, 'a host name or IP address');
const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  // Names appear in chat messages, PDFs and the dashboard: no control characters.
  .regex(/^[^\p{Cc}]+$/u, 'no control characters');

const fields = {
  name,
  vendor: z.enum(cameraVendors),
  mode: z.enum(cameraModes),
  host: host.optional(),
  port: z.number().int().min(1).max(65535).optional(),
  channel: z.number().int().min(1).max(999).optional(),
  timezone: z.string().max(64).refine(isValidTimeZone, 'not an IANA time zone, e.g. Europe/London').optional(),
  tls: z.boolean().optional(),
  camera_ids: z.array(z.string().trim().min(1).max(64)).max(256).optional(),
  direction: z.object({ forward: direction, reverse: direction }).strict().optional(),
  gps_latitude: z.number().min(-90).max(90).optional(),
  gps_longitude: z.number().min(-180).max(180).optional(),
  username: z.string().min(1).max(100).optional(),
  password: z.string().min(1).max(200).optional(),
  token: z.string().min(1).max(500).optional(),
  enabled: z.boolean().optional(),
  // Ordinary cameras (vendor snapshot): snapshot-input.ts.
  snapshot_url: snapshotBodyFields.snapshot_url.optional(),
  rtsp_url: snapshotBodyFields.rtsp_url.optional(),
  frames_per_second: snapshotBodyFields.frames_per_second.optional(),
  region: snapshotBodyFields.region.optional(),
  change_threshold: snapshotBodyFields.change_threshold.optional(),
  passage_gap_ms: snapshotBodyFields.passage_gap_ms.optional(),
};

export const addCameraBodySchema = z.object(fields).strict();
export type AddCameraBody = z.infer<typeof addCameraBodySchema>;

/** An edit names only what changes; the rest stays. `null` clears an optional field. */
export const editCameraBodySchema = z
  .object({
    ...fields,
    name: name.optional(),
    vendor: z.enum(cameraVendors).optional(),
    mode: z.enum(cameraModes).optional(),
    host: host.nullable().optional(),
    port: fields.port.nullable(),
    tls: fields.tls.nullable(),
    camera_ids: fields.camera_ids.nullable(),
    direction: fields.direction.nullable(),
    gps_latitude: fields.gps_latitude.nullable(),
    gps_longitude: fields.gps_longitude.nullable(),
    snapshot_url: fields.snapshot_url.nullable(),
    rtsp_url: fields.rtsp_url.nullable(),
    frames_per_second: fields.frames_per_second.nullable(),
    region: fields.region.nullable(),
    change_threshold: fields.change_threshold.nullable(),
    passage_gap_ms: fields.passage_gap_ms.nullable(),
    // null removes the camera's login: its username and its stored password or token (change.ts).
    username: fields.username.nullable(),
  })
  .strict();
export type EditCameraBody = z.infer<typeof editCameraBodySchema>;

/** What a camera needs per vendor and mode (the same rules the appliance applies, cameras/config.ts and snapshot-config.ts there). */
export interface CameraShape {
  vendor: (typeof cameraVendors)[number];
  mode: (typeof cameraModes)[number];
  host: string | null;
  hasPassword: boolean;
  hasToken: boolean;
  username: string | null;
  latitude: number | null;
  longitude: number | null;
  /** An ordinary camera's settings (null: none set). */
  snapshot: SnapshotSettings | null;
}

/** Pure: the problems of a camera as it would be after an add or edit, as `field: why`. */
export function shapeProblems(c: CameraShape): string[] {
  const problems: string[] = [];
  if ((c.mode === 'pull' || c.vendor === 'vendor_b') && !c.host && c.vendor !== 'snapshot') {
    problems.push('host: required for a pull camera and for a Protect console');
  }
  if (c.vendor === 'vendor_a' && c.mode === 'pull' && (!c.username || !c.hasPassword)) {
    problems.push('password: an ISAPI camera polled by the collector needs its username and password');
  }
  if (c.vendor === 'vendor_b' && !c.hasToken) problems.push('token: a Protect console needs its API key or bearer token');
  if ((c.latitude === null) !== (c.longitude === null)) problems.push('gps_longitude: gps_latitude and gps_longitude go together');
  problems.push(...snapshotProblems(c));
  return problems;
}

/** The port a vendor listens on when the form leaves it empty. */
export const defaultPort = (vendor: (typeof cameraVendors)[number], tls: boolean | null): number => (vendor === 'vendor_b' ? 443 : tls === true ? 443 : 80);
