/** `GET /api/v1/detections/{id}`: the full record (docs/search.md "One detection"). */
import { isBigintId } from '@alpr/shared/validation/params';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import { cameraName, cameraTimeZone } from '../alerts/payload.ts';
import { imageLink, type LinkSigner } from '../platform/signed-links/signed-link.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';
import { scopeCondition, type SiteScope } from '../sites/scope.ts';

type DetailRow = {
  id: string;
  detection_id: string;
  plate_number: string;
  plate_normalized: string;
  confidence: number;
  captured_at: Date;
  received_at: Date;
  direction: string;
  vehicle_type: string | null;
  color: string | null;
  brand: string | null;
  model: string | null;
  region: string | null;
  latitude: string | null;
  longitude: string | null;
  camera_id: string;
  collector_id: string;
  site_name: string;
  site_address: string | null;
  gps_latitude: string | null;
  gps_longitude: string | null;
  collector_config: Record<string, unknown>;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  full_image_size: number | null;
  crop_image_size: number | null;
  chain_seq: string;
  prev_hash: string;
  record_hash: string;
  attributes: Record<string, string> | null;
};

/** A detection outside `scope` answers the very 404 of a missing one (docs/sites.md). */
export async function detectionDetail(db: DbSession, id: string, signer: LinkSigner, scope: SiteScope) {
  if (!isBigintId(id)) throw new HubError('not_found', 'no such detection');
  const params: unknown[] = [id];
  const inScope = scopeCondition(scope, 'd.collector_id', (v) => `$${params.push(v)}`);
  const [row] = await db.sql<DetailRow>(
    `SELECT d.id::text AS id, d.detection_id, d.plate_number, d.plate_normalized, d.confidence, d.captured_at, d.received_at, d.direction,
            d.vehicle_type, d.color, d.brand, d.model, d.region, d.latitude, d.longitude, d.camera_id, d.collector_id,
            c.site_name, c.site_address, c.gps_latitude, c.gps_longitude, ${configWithCameraNames('c')} AS collector_config,
            d.full_image_hash, d.crop_image_hash, d.full_image_size, d.crop_image_size, d.chain_seq::text AS chain_seq, d.prev_hash, d.record_hash, d.attributes
     FROM detection_keys k
     JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     JOIN collectors c ON c.id = d.collector_id
     WHERE k.detection_pk = $1::bigint${inScope ? ` AND ${inScope}` : ''}`,
    params,
  );
  if (!row) throw new HubError('not_found', 'no such detection');
  const holds = await db.sql<{ id: string; case_id: string; reason: string; hold_until: Date | null; released_at: Date | null; created_at: Date }>(
    'SELECT id::text AS id, case_id, reason, hold_until, released_at, created_at FROM legal_holds WHERE detection_id = $1::bigint ORDER BY legal_holds.id',
    [id],
  );
  const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    detection_id: row.detection_id,
    plate_number: row.plate_number,
    plate_normalized: row.plate_normalized,
    confidence: Number(row.confidence),
    captured_at: iso(row.captured_at),
    received_at: iso(row.received_at),
    direction: row.direction,
    vehicle: { type: row.vehicle_type, color: row.color, brand: row.brand, model: row.model },
    region: row.region,
    attributes: row.attributes ?? {},
    position: { latitude: row.latitude === null ? null : Number(row.latitude), longitude: row.longitude === null ? null : Number(row.longitude) },
    collector: {
      id: row.collector_id,
      name: row.site_name,
      address: row.site_address,
      latitude: row.gps_latitude === null ? null : Number(row.gps_latitude),
      longitude: row.gps_longitude === null ? null : Number(row.gps_longitude),
    },
    camera: {
      id: row.camera_id,
      name: cameraName(row.collector_config ?? {}, row.camera_id),
      timezone: cameraTimeZone(row.collector_config ?? {}, row.camera_id),
    },
    images: {
      full_url: imageLink(signer, row.full_image_hash),
      crop_url: imageLink(signer, row.crop_image_hash),
      full_sha256: row.full_image_hash?.trim() ?? null,
      crop_sha256: row.crop_image_hash?.trim() ?? null,
      full_size: row.full_image_size,
      crop_size: row.crop_image_size,
    },
    chain: { collector_id: row.collector_id, seq: row.chain_seq, prev_hash: row.prev_hash, record_hash: row.record_hash },
    legal_holds: holds.map((h) => ({
      id: h.id,
      case_id: h.case_id,
      reason: h.reason,
      hold_until: iso(h.hold_until),
      released_at: iso(h.released_at),
      created_at: iso(h.created_at),
    })),
  };
}

/** `GET /api/v1/plates/autocomplete`: plates starting with `q` (OCR-normalized), most seen first. */
/** Only plates read inside `scope`, counted there: a suggestion never tells of a read elsewhere. */
export async function autocompletePlates(db: DbSession, prefix: string, limit: number, scope: SiteScope): Promise<{ plate: string; sightings: number }[]> {
  const params: unknown[] = [`${prefix}%`, limit];
  const inScope = scopeCondition(scope, 'collector_id', (v) => `$${params.push(v)}`);
  const rows = await db.sql<{ plate: string; sightings: number }>(
    `SELECT plate_number AS plate, count(*)::int AS sightings FROM detections
     WHERE plate_normalized LIKE $1${inScope ? ` AND ${inScope}` : ''} GROUP BY plate_number ORDER BY count(*) DESC, plate_number LIMIT $2`,
    params,
  );
  return rows.map((r) => ({ plate: r.plate, sightings: Number(r.sightings) }));
}
