import { DETECTIONS_CHANNEL } from '../db/channels.ts';
import { advanceHeadUpdate, advanceHeadValues, chainMovedBackwardsMessage } from '../db/chain.ts';
import type { ChainLink } from '../db/hash-chain.ts';

/**
 * Multi-row statements for storing a batch, pure text + parameter builders. Each text is
 * the same whatever the batch holds (lists travel as JSON), so it is prepared once per
 * connection (raw.ts QueryOptions). A handful of statements for the whole batch, so 50
 * detections cost a few round trips instead of 150 (the target is under 100 ms per
 * batch of 50). The rows travel as ONE json
 * parameter expanded by `json_to_recordset`: a 50-row VALUES list would be 1,000 bound
 * parameters, and building those through drizzle's SQL template cost more CPU than the
 * whole database transaction. JSON text works the same on postgres.js and PGlite, and the
 * typed record definition parses each field (timestamptz from ISO text, float8 from the
 * shortest round-trip decimal JSON.stringify writes, so doubles arrive bit-exact).
 */
export interface Statement {
  text: string;
  params: unknown[];
}

/**
 * Sent first in a batch's transaction. COMMIT checks each new idempotency key's deferred
 * foreign key to its detection (0004_detections.sql): 50 runs of one query on the
 * partitioned detections table. PostgreSQL plans such a query afresh at every run when a
 * custom plan looks cheaper than a generic one, which on a partitioned table it always does
 * (pruning at plan time): pg_stat_statements counted 24,000 plans for 24,000 checks, 0.1 ms
 * each, 5 ms of the server's CPU per batch. A generic plan prunes to the one partition when
 * it runs and is planned once per connection: the server's CPU per benchmark run fell by a
 * fifth (docs/performance.md). LOCAL: it ends with the transaction, so no other query of
 * the pooled connection is affected. The batch's own statements are unaffected: each already
 * ran on its generic plan.
 */
export const GENERIC_PLANS: Statement = { text: 'SET LOCAL plan_cache_mode = force_generic_plan', params: [] };

/**
 * The collector's position (copied onto each detection for the bounding-box filter) and
 * its registered cameras among `macs`, as `{ mac: camera uuid }`, in one round trip. The
 * MACs travel as one JSON array, so the text is the same for every batch.
 */
export function contextQuery(collectorId: string, macs: readonly string[]): Statement {
  return {
    text: `SELECT c.gps_latitude::text AS latitude, c.gps_longitude::text AS longitude,
                  coalesce((SELECT json_object_agg(cam.mac, cam.id) FROM cameras cam
                            WHERE cam.collector_id = $1::uuid AND cam.mac IN (SELECT json_array_elements_text($2::json))),
                           '{}'::json) AS cameras
           FROM collectors c WHERE c.id = $1::uuid`,
    params: [collectorId, JSON.stringify(macs)],
  };
}

/**
 * Claims the idempotency keys: a row comes back for each key that was new, with the
 * detection id it reserves. Keys already present (a re-sent batch) come back as nothing.
 */
export function claimKeys(collectorId: string, keys: readonly { detectionId: string; capturedAt: Date }[]): Statement {
  const rows = keys.map((k) => ({ detection_id: k.detectionId, captured_at: k.capturedAt.toISOString() }));
  return {
    text: `INSERT INTO detection_keys (collector_id, detection_id, detection_pk, captured_at)
           SELECT $1::uuid, v.detection_id, nextval('detections_id_seq'), v.captured_at
           FROM json_to_recordset($2::json) AS v (detection_id text, captured_at timestamptz)
           ON CONFLICT (collector_id, detection_id) DO NOTHING
           RETURNING detection_id, detection_pk`,
    params: [collectorId, JSON.stringify(rows)],
  };
}

/** The stored ids of keys that already existed (the ids as one JSON array: one text). */
export function existingKeys(collectorId: string, detectionIds: readonly string[]): Statement {
  return {
    text: `SELECT detection_id, detection_pk FROM detection_keys
           WHERE collector_id = $1::uuid AND detection_id IN (SELECT json_array_elements_text($2::json))`,
    params: [collectorId, JSON.stringify(detectionIds)],
  };
}

/** One detections row; names follow the columns of 0004_detections.sql. */
export interface DetectionRow {
  id: string;
  cameraId: string;
  detectionId: string;
  plateNumber: string;
  plateNormalized: string;
  confidence: number;
  capturedAt: Date;
  direction: string;
  vehicleType: string | null;
  color: string | null;
  brand: string | null;
  model: string | null;
  region: string | null;
  fullImageHash: string | null;
  cropImageHash: string | null;
  fullImageSize: number | null;
  cropImageSize: number | null;
  chainSeq: number;
  prevHash: string;
  recordHash: string;
  /** Camera-side facts (0013), outside the hash chain. */
  attributes: Record<string, string> | null;
  /** The camera's other readings (0026), outside the hash chain. */
  plateCandidates: Array<{ text: string; confidence?: number | undefined }> | null;
}

/** detections columns (0004_detections.sql) with their types, in DetectionRow order. */
const DETECTION_COLUMNS = [
  ['id', 'bigint'],
  ['camera_id', 'text'],
  ['detection_id', 'text'],
  ['plate_number', 'text'],
  ['plate_normalized', 'text'],
  ['confidence', 'float8'],
  ['captured_at', 'timestamptz'],
  ['direction', 'text'],
  ['vehicle_type', 'text'],
  ['color', 'text'],
  ['brand', 'text'],
  ['model', 'text'],
  ['region', 'text'],
  ['full_image_hash', 'text'],
  ['crop_image_hash', 'text'],
  ['full_image_size', 'int4'],
  ['crop_image_size', 'int4'],
  ['chain_seq', 'bigint'],
  ['prev_hash', 'text'],
  ['record_hash', 'text'],
  ['attributes', 'jsonb'],
  ['plate_candidates', 'jsonb'],
] as const;

const asJsonRow = (r: DetectionRow) => ({
  id: r.id,
  camera_id: r.cameraId,
  detection_id: r.detectionId,
  plate_number: r.plateNumber,
  plate_normalized: r.plateNormalized,
  confidence: r.confidence,
  captured_at: r.capturedAt.toISOString(),
  direction: r.direction,
  vehicle_type: r.vehicleType,
  color: r.color,
  brand: r.brand,
  model: r.model,
  region: r.region,
  full_image_hash: r.fullImageHash,
  crop_image_hash: r.cropImageHash,
  full_image_size: r.fullImageSize,
  crop_image_size: r.cropImageSize,
  chain_seq: r.chainSeq,
  prev_hash: r.prevHash,
  record_hash: r.recordHash,
  attributes: r.attributes,
  plate_candidates: r.plateCandidates,
});

/**
 * Everything after the keys are claimed, in ONE statement (one round trip instead of four;
 * on a production server each round trip is a wake-up of both processes, ~1-4 ms under load):
 *   - the batch's new detections (collector and position are the same for every row);
 *   - a pending alert check per detection, in batch order (docs/alerts.md), with its
 *     normalized plate (0021) and where, which way and when it was read, the collector's
 *     site at arrival included (0044), so the worker matches and scopes without reading
 *     detections back;
 *   - the collector's chain head moved to `next` (db/chain.ts; the statement fails when the
 *     head would go backwards, see below);
 *   - pg_notify on DETECTIONS_CHANNEL: delivered on commit only, never for a rolled-back batch;
 *     a wake-up for the alert worker and live feed, which treat the tables as the truth.
 * It travels with the COMMIT (store-transaction.ts), so it checks its own result: the head
 * moved forward, and every row and alert check was written. alpr_check (0048) fails the
 * statement otherwise, and the transaction with it.
 * The data-modifying CTEs all run to completion; their order does not matter: the alert
 * queue's foreign key names detection_keys (claimed earlier), and the keys' own key to
 * detections is deferred to commit.
 */
export function storeDetections(
  collectorId: string,
  position: { latitude: string | null; longitude: string | null },
  rows: readonly DetectionRow[],
  next: ChainLink,
  receivedAt: Date,
): Statement {
  const names = DETECTION_COLUMNS.map(([name]) => name);
  const ids = rows.map((r) => r.id);
  return {
    text: `WITH inserted AS (
             INSERT INTO detections (collector_id, latitude, longitude, ${names.join(', ')})
             SELECT $1::uuid, $2::numeric, $3::numeric, ${names.map((n) => `v.${n}`).join(', ')}
             FROM json_to_recordset($4::json) AS v (${DETECTION_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})
             RETURNING 1
           ), queued AS (
             INSERT INTO alert_queue (detection_id, plate_normalized, status, collector_id, site_id, camera_id, direction, captured_at)
             SELECT (q.item->>0)::bigint, q.item->>1, 'pending', $1::uuid, (SELECT c.site_id FROM collectors c WHERE c.id = $1::uuid),
                    q.item->>2, q.item->>3, (q.item->>4)::timestamptz
             FROM json_array_elements($5::json) WITH ORDINALITY AS q (item, n)
             ORDER BY q.n
             RETURNING 1
           ), counted AS (
             -- Reads per camera and hour, and each camera's first and last read, for health
             -- alerts (docs/health.md; migration 0024): one row a camera, by the hub's clock.
             INSERT INTO camera_read_hours AS h (collector_id, camera_id, hour, reads)
             SELECT $1::uuid, v.camera_id, date_trunc('hour', $9::timestamptz, 'UTC'), count(*)::int
             FROM json_to_recordset($4::json) AS v (camera_id text) GROUP BY v.camera_id
             ON CONFLICT (collector_id, camera_id, hour) DO UPDATE SET reads = h.reads + EXCLUDED.reads
             RETURNING 1
           ), spans AS (
             INSERT INTO camera_read_spans AS s (collector_id, camera_id, first_read_at, last_read_at)
             SELECT DISTINCT $1::uuid, v.camera_id, $9::timestamptz, $9::timestamptz FROM json_to_recordset($4::json) AS v (camera_id text)
             ON CONFLICT (collector_id, camera_id) DO UPDATE SET last_read_at = GREATEST(s.last_read_at, EXCLUDED.last_read_at)
             RETURNING 1
           ), advanced AS (
             ${advanceHeadUpdate({ collectorId: '$1::uuid', lastSeq: '$6::bigint', lastHash: '$7::text' })}
           ), tallied AS (
             SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM queued) AS queued, (SELECT count(*) FROM advanced) AS advanced
           )
           SELECT alpr_check(t.advanced = 1, $11::text) AS advanced,
                  alpr_check(t.inserted = $10::int AND t.queued = $10::int,
                             format('stored %s detections and %s alert checks for %s rows', t.inserted, t.queued, $10::int)) AS written,
                  pg_notify('${DETECTIONS_CHANNEL}', $8::text) IS NULL AS notified
             FROM tallied t`,
    params: [
      collectorId,
      position.latitude,
      position.longitude,
      JSON.stringify(rows.map(asJsonRow)),
      JSON.stringify(rows.map((r) => [r.id, r.plateNormalized, r.cameraId, r.direction, r.capturedAt.toISOString()])),
      ...advanceHeadValues(next),
      notifyPayload(collectorId, ids),
      receivedAt.toISOString(),
      rows.length,
      chainMovedBackwardsMessage(collectorId),
    ],
  };
}

/** NOTIFY payloads are capped at 8000 bytes; past that the listener reads the tables anyway. */
const MAX_NOTIFY_BYTES = 7_900;

function notifyPayload(collectorId: string, detectionPks: readonly string[]): string {
  const payload = JSON.stringify({ collector_id: collectorId, count: detectionPks.length, ids: detectionPks });
  if (Buffer.byteLength(payload) <= MAX_NOTIFY_BYTES) return payload;
  return JSON.stringify({ collector_id: collectorId, count: detectionPks.length });
}
