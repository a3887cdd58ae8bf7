/**
 * What is wrong with one collector and its cameras right now (docs/health.md). Pure: every
 * rule gives a finding that is on (the alert should be open), off (it should be closed), or
 * nothing (no opinion: the state stays as it is). reconcile.ts turns findings into opens and
 * closes against the alerts already open.
 */
import type { HeartbeatCamera } from '@alpr/shared/protocol/collector';
import { CAMERA_OFFLINE, CURSOR, LOAD, type HealthAlertKind } from './kinds.ts';
import { quietVerdict, slowVerdict, type ReadHistory } from './usual.ts';

export interface LoadWindow {
  /** Over the last 10 minutes. */
  maxItemsPerMinute: number;
  maxBatchItems: number;
  maxRequestBytes: number;
  /** Over the last 15 minutes: items plus failed requests, and of those rejected or failed. */
  volume: number;
  errors: number;
}

export interface CollectorFacts {
  id: string;
  name: string;
  /** collectors/heartbeat-interval.ts `connectivity`, the one online rule. */
  online: boolean;
  lastHeartbeatAt: Date | null;
  /** From the last heartbeat; empty from an appliance that does not report them. */
  cameras: readonly HeartbeatCamera[];
  reads: ReadonlyMap<string, ReadHistory>;
  cameraName(cameraId: string): string;
  load: LoadWindow;
}

export interface Finding {
  kind: HealthAlertKind;
  cameraId: string | null;
  cameraName: string | null;
  on: boolean;
  /** For an opening: the sentence a person reads, and the figures behind it. */
  message: string;
  detail: Record<string, unknown>;
}

export function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.floor(hours / 24)} days`;
}

const round = (n: number): number => (n >= 10 ? Math.round(n) : Math.round(n * 10) / 10);

export function collectorFindings(c: CollectorFacts, now: Date): Finding[] {
  const findings: Finding[] = [];
  const off = (kind: HealthAlertKind, cameraId: string | null = null, cameraName: string | null = null): Finding => ({
    kind,
    cameraId,
    cameraName,
    on: false,
    message: '',
    detail: {},
  });

  if (!c.online) {
    // Camera and load facts are stale while the collector is silent: no opinion on them.
    const silentMs = c.lastHeartbeatAt ? now.getTime() - c.lastHeartbeatAt.getTime() : 0;
    if (c.lastHeartbeatAt)
      findings.push({
        kind: 'collector_silent',
        cameraId: null,
        cameraName: null,
        on: true,
        message: `Collector ${c.name} has sent no heartbeat for ${duration(silentMs)}.`,
        detail: { last_heartbeat_at: c.lastHeartbeatAt.toISOString() },
      });
    return findings;
  }
  findings.push(off('collector_silent'));

  for (const [cameraId, history] of c.reads) {
    const name = c.cameraName(cameraId);
    const quiet = quietVerdict(history, now);
    if (quiet?.on) {
      const f = quiet.facts;
      findings.push({
        kind: 'camera_quiet',
        cameraId,
        cameraName: name,
        on: true,
        message: `Camera ${name} at ${c.name} has read no plates for ${duration(f.silentMs)}; usually ${round(f.usualThisHour)} an hour at this time.`,
        detail: { last_read_at: history.lastReadAt.toISOString(), expected_reads: round(f.expectedReads), usual_per_hour: f.usualThisHour },
      });
    } else if (quiet) findings.push(off('camera_quiet', cameraId, name));
    const slow = quiet?.on ? undefined : slowVerdict(history, now);
    if (slow?.on) {
      const f = slow.facts;
      findings.push({
        kind: 'camera_slow',
        cameraId,
        cameraName: name,
        on: true,
        message: `Camera ${name} at ${c.name} read ${f.observed} plates in the last 3 hours; usually about ${round(f.expected)} by now.`,
        detail: { observed_reads: f.observed, expected_reads: round(f.expected) },
      });
    } else if (slow) findings.push(off('camera_slow', cameraId, name));
  }

  for (const cam of c.cameras) {
    const name = cam.name ?? c.cameraName(cam.id);
    if (cam.state === 'OFFLINE') {
      const since = cam.last_success_at ? new Date(cam.last_success_at) : null;
      if (!since || now.getTime() - since.getTime() >= CAMERA_OFFLINE.minOfflineMs) {
        const why = cam.last_error ? `: ${cam.last_error}` : '';
        findings.push({
          kind: 'camera_offline',
          cameraId: cam.id,
          cameraName: name,
          on: true,
          message: `Camera ${name} at ${c.name} is offline: the collector cannot reach it${since ? ` since ${duration(now.getTime() - since.getTime())} ago` : ''}${why}.`,
          detail: { last_success_at: cam.last_success_at ?? null, last_error: cam.last_error ?? null },
        });
      }
    } else if (cam.state === 'ONLINE') findings.push(off('camera_offline', cam.id, name));

    const warnings = cam.clock_warnings ?? [];
    if (warnings.length > 0)
      findings.push({
        kind: 'camera_clock',
        cameraId: cam.id,
        cameraName: name,
        on: true,
        message: `Camera ${name} at ${c.name} has a clock problem: ${warnings[0]}`,
        detail: { warnings },
      });
    else if (cam.clock_warnings !== undefined) findings.push(off('camera_clock', cam.id, name));

    const age = cam.cursor_age_seconds;
    if (typeof age === 'number') {
      if (cam.state === 'ONLINE' && age >= CURSOR.stuckAfterSeconds)
        findings.push({
          kind: 'cursor_stuck',
          cameraId: cam.id,
          cameraName: name,
          on: true,
          message: `Camera ${name} at ${c.name} is online but its event cursor has not moved for ${duration(age * 1000)}: its reads may be stuck.`,
          detail: { cursor_age_seconds: age },
        });
      else if (age < CURSOR.stuckAfterSeconds) findings.push(off('cursor_stuck', cam.id, name));
    }
  }

  findings.push(...loadFindings(c, off));
  return findings;
}

function loadFindings(c: CollectorFacts, off: (kind: HealthAlertKind) => Finding): Finding[] {
  const l = c.load;
  const out: Finding[] = [];
  const collector = (kind: HealthAlertKind, on: boolean, message: string, detail: Record<string, unknown>): void => {
    out.push(on ? { kind, cameraId: null, cameraName: null, on, message, detail } : off(kind));
  };
  collector(
    'load_events_per_minute',
    l.maxItemsPerMinute > LOAD.maxEventsPerMinute,
    `Collector ${c.name} sent ${l.maxItemsPerMinute} plate reads in one minute (the limit is ${LOAD.maxEventsPerMinute}).`,
    { events_per_minute: l.maxItemsPerMinute, limit: LOAD.maxEventsPerMinute },
  );
  collector(
    'load_batch_size',
    l.maxBatchItems > LOAD.maxBatchItems,
    `Collector ${c.name} sent a batch of ${l.maxBatchItems} detections (the limit is ${LOAD.maxBatchItems}).`,
    { batch_items: l.maxBatchItems, limit: LOAD.maxBatchItems },
  );
  collector(
    'load_request_size',
    l.maxRequestBytes > LOAD.maxRequestBytes,
    `Collector ${c.name} sent a request of ${(l.maxRequestBytes / 1024 / 1024).toFixed(1)} MB (the limit is 10 MB).`,
    { request_bytes: l.maxRequestBytes, limit: LOAD.maxRequestBytes },
  );
  const rate = l.volume > 0 ? l.errors / l.volume : 0;
  if (l.volume >= LOAD.errorMinVolume && rate > LOAD.errorOpenAbove)
    collector(
      'load_error_rate',
      true,
      `${(rate * 100).toFixed(1)} % of collector ${c.name}'s uploads failed in the last ${LOAD.errorWindowMinutes} minutes (${l.errors} of ${l.volume}; the limit is 5 %).`,
      { errors: l.errors, volume: l.volume, rate },
    );
  else if (l.volume < LOAD.errorMinVolume || rate <= LOAD.errorCloseAtOrBelow) out.push(off('load_error_rate'));
  return out;
}
