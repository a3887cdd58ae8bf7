/** The `detection` payload for the `detections:live` feed, fetched once per process per batch. */
import type { DbSession } from '../db/session.ts';
import { cameraName } from '../alerts/payload.ts';
import { imageLink, type LinkSigner } from '../platform/signed-links/signed-link.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';

type DetectionRow = {
  id: string;
  plate_number: string;
  plate_normalized: string;
  confidence: number;
  captured_at: Date;
  collector_id: string;
  site_name: string;
  collector_config: Record<string, unknown>;
  camera_id: string;
  direction: string;
  full_image_hash: string | null;
  crop_image_hash: string | null;
};

export async function detectionRowsById(db: DbSession, pks: readonly string[]): Promise<DetectionRow[]> {
  if (pks.length === 0) return [];
  return db.sql<DetectionRow>(
    `SELECT d.id, d.plate_number, d.plate_normalized, d.confidence, d.captured_at, d.collector_id, c.site_name, ${configWithCameraNames('c')} AS collector_config,
            d.camera_id, d.direction, d.full_image_hash, d.crop_image_hash
     FROM detection_keys k
     JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     JOIN collectors c ON c.id = d.collector_id
     WHERE k.detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))
     ORDER BY d.id`,
    [JSON.stringify(pks)],
  );
}

/** The `detection` message payload. */
export interface DetectionPayload {
  id: string;
  plate_number: string;
  plate_normalized: string;
  confidence: number;
  captured_at: string;
  collector: { id: string; name: string };
  camera: { id: string; name: string };
  direction: string;
  image_urls: { full: string | null; crop: string | null };
}

export function detectionPayload(row: DetectionRow, signer: LinkSigner): DetectionPayload {
  return {
    id: String(row.id),
    plate_number: row.plate_number,
    plate_normalized: row.plate_normalized,
    confidence: Number(row.confidence),
    captured_at: new Date(row.captured_at).toISOString(),
    collector: { id: row.collector_id, name: row.site_name },
    camera: { id: row.camera_id, name: cameraName(row.collector_config ?? {}, row.camera_id) },
    direction: row.direction,
    image_urls: { full: imageLink(signer, row.full_image_hash), crop: imageLink(signer, row.crop_image_hash) },
  };
}
