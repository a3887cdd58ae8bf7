import { z } from 'zod';
import type { BackoffConfig } from './backoff.ts';
import { DEFAULT_BACKOFF } from './backoff.ts';
import type { WindowConfig } from './batch-trigger.ts';
import { DEFAULT_BATCH_LIMITS, DEFAULT_WINDOW_SECONDS, MAX_WINDOW_SECONDS, MIN_WINDOW_SECONDS } from './batch-trigger.ts';
import type { BatchLimits } from './ports.ts';
import type { CallTimeouts } from '@alpr/shared/http/timeouts';
import { DEFAULT_UPLOAD_TIMEOUTS } from '../hub-api/timeouts.ts';

/**
 * The tunables of the uplink as they may appear in the appliance TOML (`[uplink]`), with
 * the documented values (docs/uplink.md) as defaults. The config module parses this once at start;
 * the hub URL and the key come from elsewhere (claim / vault) and are passed beside it.
 */
export const uplinkSettingsSchema = z.object({
  window_seconds: z.number().int().min(MIN_WINDOW_SECONDS).max(MAX_WINDOW_SECONDS).default(DEFAULT_WINDOW_SECONDS),
  /** Per camera type, e.g. `{ vendor_a = 5, vendor_b = 15 }`; main.ts maps cameras to types. */
  window_seconds_by_camera_type: z.record(z.string(), z.number().int().min(MIN_WINDOW_SECONDS).max(MAX_WINDOW_SECONDS)).default({}),
  max_batch_detections: z.number().int().min(1).max(500).default(DEFAULT_BATCH_LIMITS.maxItems),
  max_batch_bytes: z
    .number()
    .int()
    .min(64 * 1024)
    .max(50 * 1024 * 1024)
    .default(DEFAULT_BATCH_LIMITS.maxBytes),
  backoff_base_ms: z.number().int().min(100).max(60_000).default(DEFAULT_BACKOFF.baseMs),
  backoff_cap_ms: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_BACKOFF.capMs),
});
export type UplinkSettings = z.infer<typeof uplinkSettingsSchema>;

export interface UplinkConfig {
  /** Base URL of the hub, e.g. `https://hub.example.org` (no trailing path needed). */
  hubUrl: string;
  /** Read on every upload, so a rotated key (config_update) is used at once; undefined = unclaimed. */
  apiKey: () => string | undefined;
  windows: WindowConfig;
  limits: BatchLimits;
  backoff: BackoffConfig;
  timeouts: CallTimeouts;
  /** Upper bound on a hub's `recommended_delay_seconds` (a buggy hub must not stall us for days). */
  maxBackpressureSeconds: number;
  /** See deliver.ts: single-item refusals in a row before the poison hunt stops. */
  maxConsecutivePoison: number;
  /** Wake-up when nothing waits; `kick()` on insert is the fast path, this is the safety net. */
  idlePollMs: number;
}

export type UplinkConfigInput = Pick<UplinkConfig, 'hubUrl' | 'apiKey'> & Partial<Omit<UplinkConfig, 'hubUrl' | 'apiKey'>>;

export function resolveUplinkConfig(input: UplinkConfigInput): UplinkConfig {
  return {
    hubUrl: input.hubUrl,
    apiKey: input.apiKey,
    windows: input.windows ?? { defaultSeconds: DEFAULT_WINDOW_SECONDS },
    limits: input.limits ?? DEFAULT_BATCH_LIMITS,
    backoff: input.backoff ?? DEFAULT_BACKOFF,
    timeouts: input.timeouts ?? DEFAULT_UPLOAD_TIMEOUTS,
    maxBackpressureSeconds: input.maxBackpressureSeconds ?? 600,
    maxConsecutivePoison: input.maxConsecutivePoison ?? 3,
    idlePollMs: input.idlePollMs ?? DEFAULT_WINDOW_SECONDS * 1000,
  };
}

/** Settings from TOML plus the camera -> type lookup that only main.ts knows. */
export function configFromSettings(
  settings: UplinkSettings,
  base: Pick<UplinkConfig, 'hubUrl' | 'apiKey'>,
  cameraType: (cameraId: string) => string | undefined,
): UplinkConfig {
  return resolveUplinkConfig({
    ...base,
    windows: {
      defaultSeconds: settings.window_seconds,
      forCamera: (cameraId) => {
        const type = cameraType(cameraId);
        return type === undefined ? undefined : settings.window_seconds_by_camera_type[type];
      },
    },
    limits: { maxItems: settings.max_batch_detections, maxBytes: settings.max_batch_bytes },
    backoff: { baseMs: settings.backoff_base_ms, capMs: settings.backoff_cap_ms },
  });
}
