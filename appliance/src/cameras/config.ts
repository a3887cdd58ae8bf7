import { z } from 'zod';
import { ADAPTER_TYPES, isReaderType } from '@alpr/shared/adapters/types';
import type { AdapterContext, DirectionMapping } from '@alpr/shared/adapters/types';
import { DEFAULT_DIRECTION_MAPPING, normalizeMac } from '@alpr/shared/detection/normalize';
import { isValidTimeZone } from '@alpr/shared/detection/time';
import { DIRECTIONS } from '@alpr/shared/detection/schema';
import { hasOwnUrl, snapshotFields, snapshotProblems } from './snapshot-config.ts';

/**
 * One configured camera (vendor_a: one device channel; vendor_b: one NVR console, which
 * may front several cameras). Parsed once at start from the appliance config (TOML) or
 * the setup page; docs/cameras.md lists every field.
 */

const direction = z.enum(DIRECTIONS);

/**
 * Every kind of camera this device takes: the adapter types (cameras and readers that read
 * plates themselves) and `snapshot`, an ordinary camera whose frames this device reads
 * (docs/ordinary-cameras.md).
 */
export const CAMERA_VENDORS = [...ADAPTER_TYPES, 'snapshot'] as const;
export type CameraVendor = (typeof CAMERA_VENDORS)[number];

export const cameraConfigSchema = z
  .object({
    /** Our id: the cursor key, the status key, `camera.id` of vendor_a detections. */
    id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'id: 1-64 of A-Z a-z 0-9 . _ -'),
    name: z.string().min(1).max(100).optional(),
    vendor: z.enum(CAMERA_VENDORS),
    mode: z.enum(['pull', 'push']),
    /** Host name or IP of the camera / console (pull, vendor_b push). */
    host: z.string().min(1).max(253).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    /** https/wss instead of http/ws. vendor_b consoles default to TLS. */
    tls: z.boolean().optional(),
    /** Check the certificate. Default: on for vendor_a, off for vendor_b (self-signed [B1][B2]). */
    verifyTls: z.boolean().optional(),
    username: z.string().min(1).max(100).optional(),
    password: z.string().max(200).optional(),
    token: z.string().min(1).max(500).optional(),
    tokenHeader: z.enum(['bearer', 'x-api-key']).default('bearer'),
    /**
     * vendor_a pull request: `POST` with an `<AfterTime>` body (the real devices [A3]), `GET`
     * with `?picTime=` (the GET variant, images inline), or `auto`: POST until the device
     * refuses the method (405/501), then GET for the life of the runner.
     */
    pullMethod: z.enum(['auto', 'POST', 'GET']).default('auto'),
    /** vendor_a traffic channel id. */
    channel: z.number().int().min(1).max(999).default(1),
    /** IANA zone of the camera clock (vendor_a timestamps without an offset). */
    timezone: z.string().refine(isValidTimeZone, 'timezone: not an IANA time zone').optional(),
    /** vendor_a: read from /ISAPI/System/deviceInfo when absent (pull). Stored normalized. */
    mac: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw === '') return undefined;
        const mac = normalizeMac(raw);
        if (!mac) ctx.addIssue({ code: 'custom', message: 'mac: 12 hex digits, separators allowed' });
        return mac;
      }),
    /** vendor_a `forward`/`reverse` meaning for this mounting (docs/normalization.md). */
    direction: z.object({ forward: direction, reverse: direction }).optional(),
    /** vendor_b: NVR camera ids to take; absent = every camera of the console. */
    cameraIds: z.array(z.string().min(1).max(64)).max(256).optional(),
    /** Default 2 s (vendor_a) / 5 s (vendor_b), docs/adapters.md. */
    pollIntervalMs: z.number().int().min(10).max(3_600_000).optional(),
    /** vendor_a: how far back the very first poll reaches (no stored cursor). Default 10 min. */
    initialBacklogMs: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3_600_000)
      .default(600_000),
    /** vendor_a pull: how often the camera's own clock is read (docs/cameras.md "Camera clocks"). Default 30 s. */
    clockCheckMs: z.number().int().min(10).max(3_600_000).default(30_000),
    /** Reconnect backoff (error rule 1 in docs/cameras.md: 1 s doubling to 60 s); smaller only in tests. */
    backoffBaseMs: z.number().int().min(1).max(60_000).default(1_000),
    backoffCapMs: z.number().int().min(1).max(600_000).default(60_000),
    /** Headers and body timeout of every camera request, images included (error rule 3 in docs/cameras.md). */
    requestTimeoutMs: z.number().int().min(10).max(60_000).default(5_000),
    /** vendor_b thumbnail budget; consoles allow about 10/s [B2]. */
    thumbnailsPerSecond: z.number().min(0.1).max(100).default(5),
    /** vendor_b: how long a 404 thumbnail is retried (it exists only once the event ended). */
    thumbnailWaitMs: z.number().int().min(0).max(120_000).default(10_000),
    thumbnailRetryMs: z.number().int().min(1).max(10_000).default(500),
    /** vendor_b push: catch-up reaches this far before the last message seen. */
    catchUpMarginMs: z.number().int().min(0).max(3_600_000).default(60_000),
    /** vendor_b: bootstrap (camera id -> MAC) refresh period. */
    bootstrapRefreshMs: z.number().int().min(1_000).max(86_400_000).default(600_000),
    /** Push: the only source address accepted for this camera; default its `host`; `any` turns pinning off. */
    pushSource: z.string().min(1).max(253).optional(),
    /** Push: a shared secret the camera must present (Basic password, X-Alpr-Push-Secret or ?secret=). Kept in the vault. */
    pushSecret: z.string().min(16, 'pushSecret: at least 16 characters').max(200).optional(),
    /** Where the camera was entered: on the hub (docs/cameras-central.md) or on this device's setup page (absent). */
    source: z.enum(['hub', 'local']).optional(),
    /**
     * Frigate (docs/readers.md "Frigate"): the MQTT broker Frigate publishes to, `mqtt://` or
     * `mqtts://host[:port]`; `username`/`password` are the broker login. `host`/`port` (5000) are
     * Frigate's HTTP API, where the snapshots are.
     */
    mqttUrl: z
      .string()
      .regex(/^mqtts?:\/\/[^\s/]+\/?$/, 'mqttUrl: mqtt://host[:port] or mqtts://host[:port]')
      .optional(),
    /** Frigate's `mqtt.topic_prefix`; events arrive on `<prefix>/events`. */
    mqttTopicPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_\-/]{1,100}$/, 'mqttTopicPrefix: letters, digits, _ - /')
      .default('frigate'),
    /** mqtts: a PEM file of the CA that signed the broker's certificate (else the system's). */
    mqttCaFile: z.string().min(1).max(500).optional(),
    /** Batch window class for the uplink (uplink `window_seconds_by_camera_type`). */
    cameraType: z.string().min(1).max(50).optional(),
    ...snapshotFields,
  })
  .superRefine((c, ctx) => {
    const needsHost = (c.mode === 'pull' && !(c.vendor === 'snapshot' && hasOwnUrl(c))) || c.vendor === 'vendor_b';
    if (needsHost && !c.host && c.vendor !== 'snapshot') ctx.addIssue({ code: 'custom', path: ['host'], message: 'host is required' });
    if (c.vendor === 'vendor_a' && c.mode === 'pull' && !c.username) {
      ctx.addIssue({ code: 'custom', path: ['username'], message: 'vendor_a pull needs username/password (Digest)' });
    }
    if (c.vendor === 'vendor_b' && !c.token) {
      ctx.addIssue({ code: 'custom', path: ['token'], message: 'vendor_b needs a token (bearer or API key)' });
    }
    // Frigate: this device subscribes to its broker and fetches snapshots from its API.
    if (c.vendor === 'frigate') {
      if (c.mode !== 'pull')
        ctx.addIssue({ code: 'custom', path: ['mode'], message: 'frigate: mode must be pull (this device subscribes to its MQTT broker)' });
      if (!c.mqttUrl) ctx.addIssue({ code: 'custom', path: ['mqttUrl'], message: 'frigate needs mqttUrl (the broker Frigate publishes to)' });
    }
    for (const problem of snapshotProblems(c)) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
    // Plate readers (docs/readers.md) post to us; there is nothing to poll.
    if (isReaderType(c.vendor) && c.mode !== 'push') {
      ctx.addIssue({ code: 'custom', path: ['mode'], message: `${c.vendor} is a plate reader that posts its reads: mode must be push` });
    }
  });

export type CameraConfigInput = z.input<typeof cameraConfigSchema>;
export type CameraConfig = z.output<typeof cameraConfigSchema>;

export const cameraListSchema = z.array(cameraConfigSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((c, i) => {
    if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate camera id ${c.id}` });
    seen.add(c.id);
  });
});

export const DEFAULT_POLL_MS = { vendor_a: 2_000, vendor_b: 5_000 } as const;

export const pollIntervalOf = (c: CameraConfig): number => c.pollIntervalMs ?? (c.vendor === 'vendor_b' ? DEFAULT_POLL_MS.vendor_b : DEFAULT_POLL_MS.vendor_a);

export const usesTls = (c: CameraConfig): boolean => c.tls ?? c.vendor === 'vendor_b';

export const verifiesTls = (c: CameraConfig): boolean => c.verifyTls ?? c.vendor === 'vendor_a';

/** `http(s)://host[:port]`; IPv6 literals are bracketed. */
export function baseUrlOf(c: CameraConfig, scheme: 'http' | 'ws' = 'http'): string {
  const host = c.host ?? '127.0.0.1';
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const s = `${scheme}${usesTls(c) ? 's' : ''}`;
  return `${s}://${bracketed}${c.port !== undefined ? `:${c.port}` : ''}`;
}

export const directionMappingOf = (c: CameraConfig): DirectionMapping => c.direction ?? DEFAULT_DIRECTION_MAPPING;

/** The adapter context for a single-camera device (vendor_a, or a vendor_b push relay). */
export function contextOf(c: CameraConfig, mac: string | undefined = c.mac): AdapterContext {
  return {
    ...(c.timezone ? { timezone: c.timezone } : {}),
    camera: { id: c.id, ...(mac ? { mac } : {}), ...(c.name ? { name: c.name } : {}) },
    directionMapping: directionMappingOf(c),
  };
}

export const displayName = (c: CameraConfig): string => c.name ?? c.id;
