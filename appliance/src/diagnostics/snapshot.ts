import { bufferStats, type BufferStats, type DetectionBuffer } from '../buffer/index.ts';
import type { CameraStatus } from '../cameras/status.ts';
import type { EnrollmentReport } from '../keystore/enrollment-state.ts';
import type { HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import type { UplinkState } from '../uplink/uplink-state.ts';
import { capacityOf, type Capacity } from './capacity.ts';
import { hubNotice, type HubNotice } from './hub-notice.ts';
import type { IntakeMeter, IntakeRate } from './intake-rate.ts';

/** Everything the local diagnostics show, gathered in one place (no secrets: key prefix only). */
export interface DiagnosticsSnapshot {
  generated_at: string;
  claimed: boolean;
  hub_url: string | null;
  key_prefix: string | null;
  buffer: BufferStats;
  uplink: UplinkState | null;
  /** The hub suspended this site, or replaced this box by another device (hub-notice.ts); null otherwise. */
  hub_notice: HubNotice | null;
  cameras: CameraStatus[];
  /** Keystore state: `unusable` names why the stored enrollment does not open. */
  enrollment: EnrollmentReport | null;
  /** The disk cap and how many days it holds at the current intake rate. */
  disk: (Capacity & { cap_source: string; intake: IntakeRate }) | null;
  /** Problems a person should act on (enrollment unusable, disk cap under 7 days). */
  warnings: string[];
}

export interface DiagnosticsSources {
  buffer: DetectionBuffer;
  hubUrl: () => string | undefined;
  apiKey: () => string | undefined;
  uplink: () => UplinkState | undefined;
  /** The heartbeat sees a suspension or a replacement even when the buffer is empty. */
  heartbeat?: () => HeartbeatState | undefined;
  cameras: () => CameraStatus[];
  now: () => Date;
  enrollment?: () => EnrollmentReport;
  intake?: IntakeMeter;
  diskCap?: { bytes: number; source: string };
}

export function takeSnapshot(sources: DiagnosticsSources): DiagnosticsSnapshot {
  const key = sources.apiKey();
  const buffer = bufferStats(sources.buffer);
  const enrollment = sources.enrollment?.() ?? null;
  const uplink = sources.uplink() ?? null;
  let disk: DiagnosticsSnapshot['disk'] = null;
  if (sources.diskCap && sources.intake) {
    const intake = sources.intake.rate();
    const capacity = capacityOf({
      capBytes: sources.diskCap.bytes,
      rate: intake,
      rows: buffer.states.pending + buffer.states.in_flight,
      bufferedBytes: buffer.bytes.buffered,
      imageBytes: buffer.bytes.images,
      databaseUsedBytes: buffer.bytes.databaseUsed,
    });
    disk = { ...capacity, cap_source: sources.diskCap.source, intake };
  }
  const warnings: string[] = [];
  if (enrollment?.state === 'unusable') warnings.push(`stored enrollment unusable (${enrollment.code}): ${enrollment.problem}`);
  if (disk?.warning) warnings.push(disk.warning);
  return {
    generated_at: sources.now().toISOString(),
    claimed: key !== undefined,
    hub_url: sources.hubUrl() ?? null,
    key_prefix: key ? key.slice(0, 10) : null,
    buffer,
    uplink,
    hub_notice: hubNotice(uplink, sources.heartbeat?.()),
    cameras: sources.cameras(),
    enrollment,
    disk,
    warnings,
  };
}
