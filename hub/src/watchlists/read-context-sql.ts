/**
 * What a scope asks of a read (docs/watchlists.md "Scopes"): its collector, camera, site,
 * direction and capture time, by detection pk. Alert checks carry these since migration 0044
 * (site: the collector's when the read arrived); this reads them for a check queued by an
 * older hub: one statement per batch, through detection_keys so each read
 * touches its own partition, with the collector's site now.
 */
import type { DbSession } from '../db/session.ts';
import type { ReadContext } from './scope.ts';

export async function readContexts(db: DbSession, detectionPks: readonly string[]): Promise<Map<string, ReadContext>> {
  const out = new Map<string, ReadContext>();
  if (detectionPks.length === 0) return out;
  const rows = await db.sql<{
    pk: string;
    collector_id: string;
    camera_id: string;
    site_id: string | null;
    direction: ReadContext['direction'];
    captured_at: Date;
  }>(
    `SELECT k.detection_pk AS pk, d.collector_id, d.camera_id, c.site_id, d.direction, d.captured_at
     FROM detection_keys k
     JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     LEFT JOIN collectors c ON c.id = d.collector_id
     WHERE k.detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
    [JSON.stringify(detectionPks)],
    { prepare: true },
  );
  for (const r of rows) {
    out.set(String(r.pk), {
      collectorId: r.collector_id,
      cameraId: r.camera_id,
      siteId: r.site_id,
      direction: r.direction,
      capturedAt: new Date(r.captured_at),
    });
  }
  return out;
}
