/**
 * What a claimed message carries: each item's alert with the words it needs and the crop's
 * hash, and the time zone to write times in (the zone of the recipient's telegram default).
 */
import { reportedConfidence } from '@alpr/shared/detection/confidence';
import type { DbSession } from '../../db/session.ts';
import { cameraName, isUnverified } from '../../alerts/payload.ts';
import type { AlertLine } from './message-text.ts';
import { configWithCameraNames } from '../../collectors/cameras/names-sql.ts';

export interface MessageContent {
  lines: AlertLine[];
  /** The queue item behind each line, in the same order. */
  itemIds: string[];
  timeZone: string;
  /** The crop of the first alert, when it has one (a single alert goes as a photo). */
  cropHash: string | null;
}

type Row = {
  item_id: string;
  alert_id: string;
  detection_id: string;
  uncertain: boolean;
  plate_number: string;
  captured_at: Date;
  confidence: number | null;
  camera_id: string;
  crop_image_hash: string | null;
  site_name: string;
  config: Record<string, unknown>;
  watchlist_name: string;
  priority: string;
  verification: string;
  verification_required: boolean | null;
  historical: boolean;
  matched_scope: string | null;
  timezone: string | null;
};

export async function loadMessage(db: DbSession, messageId: string): Promise<MessageContent> {
  const rows = await db.sql<Row>(
    `SELECT q.id AS item_id, a.id AS alert_id, a.detection_id, q.uncertain, d.plate_number, d.captured_at, d.confidence, d.camera_id, d.crop_image_hash,
            c.site_name, ${configWithCameraNames('c')} AS config, w.name AS watchlist_name, w.priority,
            a.verification, w.verification_required, a.historical, a.entry_snapshot->>'scope' AS matched_scope,
            (SELECT p.timezone FROM notification_preferences p
             WHERE p.user_id = q.user_id AND p.channel = 'telegram' AND p.watchlist_id IS NULL) AS timezone
     FROM notification_queue q
     JOIN alerts a ON a.id = q.alert_id
     JOIN watchlists w ON w.id = a.watchlist_id
     JOIN detection_keys k ON k.detection_pk = a.detection_id
     JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     JOIN collectors c ON c.id = d.collector_id
     WHERE q.message_id = $1::bigint
     ORDER BY a.created_at, a.id`,
    [messageId],
  );
  const lines = rows.map<AlertLine>((r) => ({
    alertId: String(r.alert_id),
    detectionId: String(r.detection_id),
    plate: r.plate_number,
    watchlistName: r.watchlist_name,
    priority: r.priority,
    capturedAt: new Date(r.captured_at),
    // 0 is a read whose camera reported no confidence: the message says "confidence not reported".
    confidence: reportedConfidence(r.confidence === null ? null : Number(r.confidence)),
    siteName: r.site_name,
    cameraName: cameraName(r.config ?? {}, r.camera_id),
    uncertain: r.uncertain,
    unverified: isUnverified(r),
    historical: r.historical === true,
    matchedScope: r.matched_scope,
  }));
  return { lines, itemIds: rows.map((r) => String(r.item_id)), timeZone: rows[0]?.timezone ?? 'UTC', cropHash: rows[0]?.crop_image_hash ?? null };
}
