import { bufferStats, type BufferStats, type DetectionBuffer } from '../buffer/index.ts';
import type { CameraStatus } from '../cameras/status.ts';
import type { UplinkState } from '../uplink/uplink-state.ts';

/** Everything the local diagnostics show, gathered in one place (no secrets: key prefix only). */
export interface DiagnosticsSnapshot {
  generated_at: string;
  claimed: boolean;
  hub_url: string | null;
  key_prefix: string | null;
  buffer: BufferStats;
  uplink: UplinkState | null;
  cameras: CameraStatus[];
}

export interface DiagnosticsSources {
  buffer: DetectionBuffer;
  hubUrl: () => string | undefined;
  apiKey: () => string | undefined;
  uplink: () => UplinkState | undefined;
  cameras: () => CameraStatus[];
  now: () => Date;
}

export function takeSnapshot(sources: DiagnosticsSources): DiagnosticsSnapshot {
  const key = sources.apiKey();
  return {
    generated_at: sources.now().toISOString(),
    claimed: key !== undefined,
    hub_url: sources.hubUrl() ?? null,
    key_prefix: key ? key.slice(0, 10) : null,
    buffer: bufferStats(sources.buffer),
    uplink: sources.uplink() ?? null,
    cameras: sources.cameras(),
  };
}
