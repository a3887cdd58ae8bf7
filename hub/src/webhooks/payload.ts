/**
 * The bodies the hub sends (docs/webhooks.md "Payloads"), pure: the Standard Webhooks
 * envelope `{ type, timestamp, data }`. The body is built once, when the event is queued,
 * and stored: every retry sends the same bytes.
 */
import type { HealthAlertRecord } from '../health/present.ts';
export const WEBHOOK_EVENTS = ['alert', 'health', 'detection'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export type AlertEventRow = {
  alert_id: string;
  raised_at: Date | string;
  watchlist_id: string;
  watchlist_name: string;
  priority: string;
  plate: string;
  plate_normalized: string;
  confidence: number;
  detection_id: string;
  captured_at: Date | string;
  collector_id: string;
  camera_id: string;
  /** A retro-hunt's hit on a read stored before its entry was added (alerts.historical). */
  historical: boolean;
};

const iso = (v: Date | string): string => new Date(v).toISOString();

export function alertBody(row: AlertEventRow, now: Date): string {
  return JSON.stringify({
    type: 'alert.raised',
    timestamp: now.toISOString(),
    data: {
      alert_id: String(row.alert_id),
      raised_at: iso(row.raised_at),
      watchlist: { id: row.watchlist_id, name: row.watchlist_name, priority: row.priority },
      plate: { text: row.plate, normalized: row.plate_normalized, confidence: Number(row.confidence) },
      detection: { id: row.detection_id, captured_at: iso(row.captured_at), collector_id: row.collector_id, camera_id: row.camera_id },
      historical: row.historical === true,
    },
  });
}

/** One stored detection, with its site's and camera's names (detection-events.ts). */
export interface DetectionEventRow {
  pk: string;
  detection_id: string;
  plate: string;
  plate_normalized: string;
  confidence: number;
  captured_at: Date | string;
  received_at: Date | string;
  collector_id: string;
  collector_name: string;
  camera_id: string;
  camera_name: string;
}

/** `detection.stored`: the alert body's plate and detection parts, plus where and when it arrived. */
export function detectionBody(row: DetectionEventRow, now: Date): string {
  return JSON.stringify({
    type: 'detection.stored',
    timestamp: now.toISOString(),
    data: {
      record_id: String(row.pk),
      plate: { text: row.plate, normalized: row.plate_normalized, confidence: Number(row.confidence) },
      detection: {
        id: row.detection_id,
        captured_at: iso(row.captured_at),
        received_at: iso(row.received_at),
        collector_id: row.collector_id,
        collector_name: row.collector_name,
        camera_id: row.camera_id,
        camera_name: row.camera_name,
      },
    },
  });
}

/** A health alert (docs/health.md) opened or closed, as the admin API shows it: what and where, never a plate. */
export type HealthEventRecord = Omit<HealthAlertRecord, 'detail'>;

export function healthBody(record: HealthEventRecord, event: 'opened' | 'closed', now: Date): string {
  return JSON.stringify({
    type: `health.${event}`,
    timestamp: now.toISOString(),
    data: {
      health_alert_id: record.id,
      kind: record.kind,
      message: record.message,
      opened_at: record.opened_at,
      closed_at: record.closed_at,
      // null for an alert about the hub itself (docs/health.md "Search keys").
      collector: record.collector_id === null ? null : { id: record.collector_id, name: record.collector_name },
      camera: record.camera_id === null ? null : { id: record.camera_id, name: record.camera_name },
    },
  });
}

export function testBody(targetId: string, now: Date): string {
  return JSON.stringify({
    type: 'webhook.test',
    timestamp: now.toISOString(),
    data: { target_id: targetId, message: 'A test event sent from the dashboard or the admin API.' },
  });
}
