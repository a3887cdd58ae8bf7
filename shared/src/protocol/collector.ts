import { z } from 'zod';

/**
 * One camera as the appliance sees it at a heartbeat (docs/health.md): its state, its clock
 * warnings, and for a pulled camera how long its pull cursor has not moved. The hub raises
 * camera_offline, camera_clock and cursor_stuck health alerts from these.
 */
export const heartbeatCameraSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().max(100).optional(),
  state: z.enum(['CONNECTING', 'ONLINE', 'OFFLINE']),
  last_success_at: z.string().datetime().nullable().optional(),
  last_error: z.string().max(300).nullable().optional(),
  clock_warnings: z.array(z.string().max(300)).max(5).optional(),
  /** Pulled cameras: seconds since the pull cursor last moved forward. */
  cursor_age_seconds: z.number().int().min(0).nullable().optional(),
});
export type HeartbeatCamera = z.infer<typeof heartbeatCameraSchema>;

/** Heartbeat body (docs/protocol.md); extra fields are diagnostics. */
export const heartbeatRequestSchema = z.object({
  uptime_seconds: z.number().int().min(0),
  queue_depth: z.number().int().min(0),
  cameras_online: z.number().int().min(0),
  config_version: z.number().int().min(0),
  cameras_total: z.number().int().min(0).optional(),
  edge_version: z.string().max(20).optional(),
  os_version: z.string().max(50).optional(),
  last_upload_at: z.string().datetime().nullable().optional(),
  errors: z.array(z.string().max(500)).max(20).optional(),
  /** Per-camera states (docs/health.md); absent from appliances older than this field. */
  cameras: z.array(heartbeatCameraSchema).max(64).optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;

export const COMMAND_TYPES = ['config_update', 'wipe', 'rotate_key', 'trust_hub_certificate'] as const;
export type CommandType = (typeof COMMAND_TYPES)[number];

/**
 * A command as delivered in a heartbeat response. `signature` is Ed25519 (tweetnacl,
 * base64) by the hub's key over `commandSigningBytes(command)`; the appliance refuses a
 * command whose signature does not verify against the hub key it received at claim.
 */
export const signedCommandSchema = z.object({
  id: z.string().uuid(),
  collector_id: z.string().uuid(),
  type: z.enum(COMMAND_TYPES),
  payload: z.record(z.string(), z.unknown()),
  issued_at: z.string().datetime(),
  signature: z.string().min(1),
});
export type SignedCommand = z.infer<typeof signedCommandSchema>;

/**
 * Payload of a `rotate_key` command (docs/collectors.md "Key rotation"). The new key travels
 * only sealed to the appliance's X25519 key from the claim (nacl box, the construction of
 * shared/src/protocol/sealed-box.ts), so neither the command table nor a log line holds it in
 * clear. `key_prefix` lets the appliance check what it opened.
 */
export const rotateKeyPayloadSchema = z.object({
  key_id: z.string().uuid(),
  key_prefix: z.string().min(1).max(10),
  sealed_api_key: z.string().min(1).max(400),
  old_key_expires_at: z.string().datetime(),
});
export type RotateKeyPayload = z.infer<typeof rotateKeyPayloadSchema>;

export const heartbeatResponseSchema = z.object({
  pending_commands: z.array(z.unknown()),
  server_time: z.string().datetime().optional(),
  heartbeat_interval_seconds: z.number().int().positive().optional(),
  /**
   * The collector's status on the hub (docs/collectors.md "Suspend and resume"): `disabled`
   * while an admin has suspended the site, so the appliance can say so on its diagnostics
   * page even when it has nothing to upload. Absent from hubs older than this field.
   */
  collector_status: z.enum(['active', 'disabled']).optional().catch(undefined),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponseSchema>;

export const ACK_STATUSES = ['success', 'failed', 'rolled_back'] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];

/**
 * What the appliance found for each camera of a configuration it was sent, at the end of its
 * watch (docs/cameras-central.md): reading (`connected`), refused by the camera
 * (`authentication_failed`), no answer (`unreachable`), reading but with a clock that is off
 * (`clock_warning`), or none of these yet (`not_connected`).
 */
export const CAMERA_OUTCOMES = ['connected', 'authentication_failed', 'unreachable', 'clock_warning', 'not_connected'] as const;
export type CameraOutcome = (typeof CAMERA_OUTCOMES)[number];
export const cameraAckSchema = z.object({
  id: z.string().min(1).max(64),
  outcome: z.enum(CAMERA_OUTCOMES),
  detail: z.string().max(300).optional(),
});
export type CameraAck = z.infer<typeof cameraAckSchema>;

export const commandAckRequestSchema = z.object({
  status: z.enum(ACK_STATUSES),
  detail: z.string().max(2000).optional(),
  /** config_update only: one answer per camera of the configuration. */
  cameras: z.array(cameraAckSchema).max(64).optional(),
});
export type CommandAckRequest = z.infer<typeof commandAckRequestSchema>;

/** Claim: code + hardware id -> collector id, key (once), initial configuration. */
export const claimRequestSchema = z.object({
  claim_code: z.string().min(1).max(40),
  hardware_id: z.string().min(1).max(100),
  /** Appliance's X25519 public key (base64) for credentials sealed on the hub. */
  public_key: z.string().max(100).optional(),
  edge_version: z.string().max(20).optional(),
  os_version: z.string().max(50).optional(),
});
export type ClaimRequest = z.infer<typeof claimRequestSchema>;

export const enrollmentResponseSchema = z.object({
  collector_id: z.string().uuid(),
  api_key: z.string(),
  central_url: z.string(),
  config: z.record(z.string(), z.unknown()),
  config_version: z.number().int().min(1),
  /** Hub's Ed25519 public key (base64): verifies command signatures. */
  hub_public_key: z.string(),
});
export type EnrollmentResponse = z.infer<typeof enrollmentResponseSchema>;

/**
 * Why the hub refused a claim or provision, beside the usual `{ code, message }` as
 * `error.reason`: an expired and a used claim code are both 410, and the setup page tells
 * the person at the device a different next step for each.
 */
export const ENROLLMENT_REFUSAL_REASONS = [
  'claim_code_unknown',
  'claim_code_expired',
  'claim_code_used',
  'hardware_already_registered',
  'hardware_mismatch',
  'provisioning_token_unknown',
  'provisioning_token_expired',
  'provisioning_token_used',
  'collector_not_claimable',
  /** 503: the hub has no public URL configured to hand out as `central_url`. */
  'hub_public_url_unset',
] as const;
export type EnrollmentRefusalReason = (typeof ENROLLMENT_REFUSAL_REASONS)[number];

/**
 * Refusals of a claimed collector's calls (upload, heartbeat, ack), as `error.reason`:
 * - `collector_suspended`: 403 with `Retry-After` on uploads while an admin has suspended the
 *   site (status `disabled`). Nothing is stored; the appliance keeps buffering and tries again
 *   after Retry-After, and drains once resumed.
 * - `collector_replaced`: 401 for every call made with the key of a box that an admin replaced
 *   by another device under the same collector id. Nothing it sends is stored.
 */
export const COLLECTOR_REFUSAL_REASONS = ['collector_suspended', 'collector_replaced'] as const;
export type CollectorRefusalReason = (typeof COLLECTOR_REFUSAL_REASONS)[number];

/** Seconds a suspended collector waits between upload attempts (the hub's Retry-After). */
export const SUSPENDED_RETRY_AFTER_SECONDS = 60;

/** A refusal body as the appliance reads it: anything missing or unknown is left out, never fatal. */
export const enrollmentRefusalSchema = z.object({
  error: z
    .object({
      message: z.string().optional().catch(undefined),
      reason: z.enum(ENROLLMENT_REFUSAL_REASONS).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});

export const provisionRequestSchema = z.object({
  provisioning_token: z.string().min(1).max(100),
  hardware_id: z.string().min(1).max(100).optional(),
  public_key: z.string().max(100).optional(),
  edge_version: z.string().max(20).optional(),
  os_version: z.string().max(50).optional(),
});
export type ProvisionRequest = z.infer<typeof provisionRequestSchema>;
