import { z } from 'zod';
import { cameraConfigSchema } from '../cameras/config.ts';
import { applianceMqttSchema } from '../mqtt/config.ts';
import { uplinkSettingsSchema } from '../uplink/config.ts';
import { hubUrlProblem } from './hub-url-rule.ts';

/**
 * The appliance configuration after the layers are merged (merge.ts) and before anything
 * uses it: validated once here, then passed down. docs/appliance-lifecycle.md and docs/uplink.md describe the keys.
 */
export const applianceConfigSchema = z.object({
  /**
   * Base URL of the hub; absent until the appliance is claimed. https, or http to loopback
   * only, from whichever layer it comes (hub-url-rule.ts).
   */
  hub_url: z
    .string()
    .url()
    .superRefine((value, ctx) => {
      const problem = hubUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  setup: z
    .object({
      /** LAN-facing diagnostics/setup page and camera push receiver (port 8080). */
      host: z.string().default('0.0.0.0'),
      port: z.number().int().min(0).max(65535).default(8080),
    })
    .prefault({}),
  heartbeat_interval_seconds: z.number().int().min(5).max(3600).default(60),
  /**
   * How long a configuration from the hub is watched before it is acknowledged (rolled back
   * on a regression, docs/appliance-lifecycle.md "Rollback rules"). 120 s lets a camera go
   * through a reconnect or two; the hub page has each camera's answer within this plus a
   * heartbeat. Read at start.
   */
  config_update_watch_seconds: z.number().int().min(2).max(900).default(120),
  cameras: z.array(cameraConfigSchema).max(64).default([]),
  uplink: uplinkSettingsSchema.prefault({}),
  buffer: z
    .object({
      synchronous: z.enum(['NORMAL', 'FULL']).default('FULL'),
      retention_days: z.number().min(1).max(30).default(7),
      /** Absent: sized from the data partition at start (runtime/disk-cap.ts, docs/setup-page.md "Disk cap"). */
      disk_cap_bytes: z
        .number()
        .int()
        .min(16 * 1024 * 1024)
        .optional(),
    })
    .prefault({}),
  ingest: z
    .object({
      /**
       * A push whose camera matches no configured camera (by MAC): accepted from the LAN by
       * default (losing a read from a camera nobody configured yet is worse), refused when
       * false, so only configured, pinned cameras can write evidence. docs/setup-page.md "Camera pushes".
       */
      accept_unknown_cameras: z.boolean().default(true),
    })
    .prefault({}),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `GET /metrics` (docs/metrics.md): loopback only, or with `Authorization: Bearer <token>`. Read at start. */
  metrics: z
    .object({
      token: z
        .string()
        .regex(/^[\x21-\x7e]{32,256}$/, '32-256 printable characters')
        .optional(),
    })
    .prefault({}),
  /** MQTT out to a LAN broker (docs/mqtt.md "From the appliance"); off when absent. */
  mqtt: applianceMqttSchema.optional(),
});
export type ApplianceConfig = z.infer<typeof applianceConfigSchema>;
