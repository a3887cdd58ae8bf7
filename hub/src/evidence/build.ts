/**
 * Building an evidence export (docs/evidence-export.md): a streamed zip (yazl) of the
 * detections as JSON and CSV, their images, the chain links, and a manifest of SHA-256 hashes
 * signed with the hub's Ed25519 key. Images are content-addressed, so their manifest entries
 * are known before they are read; each is checked against its name as it streams, and a
 * mismatch (a damaged store) aborts the export rather than shipping a bad file.
 */
import { reportedConfidence } from '@alpr/shared/detection/confidence';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { DbSession } from '../db/session.ts';
import type { ImageStore } from '../images/image-store.ts';
import { csvField } from '../watchlists/csv.ts';
import { sha256Hex } from '../images/image-store.ts';
import { CHAIN_FILE, chainEntry, FORMAT, MANIFEST_FILE, PUBLIC_KEY_FILE, SIGNATURE_FILE, signManifest, type Manifest, type ManifestFile } from './manifest.ts';
import { cameraName, cameraTimeZone } from '../alerts/payload.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';

export const MAX_EXPORT_DETECTIONS = 1_000;

export type ExportRow = {
  id: string;
  detection_id: string;
  collector_id: string;
  site_name: string;
  camera_id: string;
  collector_config: Record<string, unknown>;
  plate_number: string;
  plate_normalized: string;
  confidence: number;
  captured_at: Date;
  received_at: Date;
  direction: string;
  latitude: string | null;
  longitude: string | null;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  full_image_size: number | null;
  crop_image_size: number | null;
  chain_seq: string;
  prev_hash: string;
  record_hash: string;
  /** Images retention removed (removed_images): listed in the manifest, not shipped. */
  removed_images: string[];
};

export async function exportRows(db: DbSession, ids: readonly string[]): Promise<ExportRow[]> {
  return db.sql<ExportRow>(
    `SELECT d.id::text AS id, d.detection_id, d.collector_id, c.site_name, d.camera_id, ${configWithCameraNames('c')} AS collector_config, d.plate_number, d.plate_normalized, d.confidence,
            d.captured_at, d.received_at, d.direction, d.latitude, d.longitude, d.full_image_hash, d.crop_image_hash, d.full_image_size,
            d.crop_image_size, d.chain_seq::text AS chain_seq, d.prev_hash, d.record_hash,
            ARRAY(SELECT r.sha256::text FROM removed_images r WHERE r.sha256 IN (d.full_image_hash, d.crop_image_hash)) AS removed_images
     FROM detection_keys k JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at JOIN collectors c ON c.id = d.collector_id
     WHERE k.detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))
     ORDER BY d.captured_at, d.id`,
    [JSON.stringify(ids)],
  );
}

const COLUMNS = [
  'id',
  'detection_id',
  'plate_number',
  'plate_normalized',
  'confidence',
  'captured_at',
  'received_at',
  'direction',
  'collector_id',
  'collector_name',
  'camera_id',
  'camera_name',
  'camera_timezone',
  'latitude',
  'longitude',
  'full_image_sha256',
  'crop_image_sha256',
] as const;

/** One detection of detections.json and detections.csv. */
export function exportRecord(r: ExportRow): Record<(typeof COLUMNS)[number], string | number | null> {
  return {
    id: r.id,
    detection_id: r.detection_id,
    plate_number: r.plate_number,
    plate_normalized: r.plate_normalized,
    // null when the camera reported none (stored as 0; the chain file keeps the stored figure).
    confidence: reportedConfidence(Number(r.confidence)),
    captured_at: new Date(r.captured_at).toISOString(),
    received_at: new Date(r.received_at).toISOString(),
    direction: r.direction,
    collector_id: r.collector_id,
    collector_name: r.site_name,
    camera_id: r.camera_id,
    camera_name: cameraName(r.collector_config ?? {}, r.camera_id),
    camera_timezone: cameraTimeZone(r.collector_config ?? {}, r.camera_id),
    latitude: r.latitude === null ? null : Number(r.latitude),
    longitude: r.longitude === null ? null : Number(r.longitude),
    full_image_sha256: r.full_image_hash?.trim() ?? null,
    crop_image_sha256: r.crop_image_hash?.trim() ?? null,
  };
}

function imageName(hash: string, bytesHint?: Uint8Array): string {
  return `images/${hash}.${bytesHint && bytesHint[0] === 0x89 ? 'png' : 'jpg'}`;
}

export interface ExportInput {
  rows: ExportRow[];
  images: ImageStore;
  signingKey: { secretKey: Uint8Array; publicKeyBase64: string };
  createdAt: Date;
  createdBy: string;
  reason: string;
  query: Record<string, string>;
}

/** A readable zip stream. Reading an image that does not match its hash errors the stream. */
export async function buildExport(input: ExportInput): Promise<Readable> {
  const zip = new ZipFile();
  const files: ManifestFile[] = [];
  const mtime = input.createdAt;
  const addBuffer = (name: string, bytes: Buffer): void => {
    files.push({ name, sha256: sha256Hex(bytes), size: bytes.byteLength });
    zip.addBuffer(bytes, name, { mtime });
  };
  const records = input.rows.map(exportRecord);
  addBuffer('detections.json', Buffer.from(JSON.stringify(records, null, 2)));
  addBuffer(
    'detections.csv',
    Buffer.from([COLUMNS.join(','), ...records.map((r) => COLUMNS.map((c) => csvField(r[c] === null ? '' : String(r[c]))).join(','))].join('\r\n') + '\r\n'),
  );
  addBuffer(CHAIN_FILE, Buffer.from(JSON.stringify(input.rows.map(chainEntry), null, 2)));

  // Each image once, read lazily (bounded memory), checked against its content address.
  const hashes = new Map<string, number>();
  const removed = new Set(input.rows.flatMap((r) => r.removed_images.map((h) => h.trim())));
  for (const r of input.rows) {
    for (const [hash, size] of [
      [r.full_image_hash, r.full_image_size],
      [r.crop_image_hash, r.crop_image_size],
    ] as const) {
      if (hash && !removed.has(hash.trim())) hashes.set(hash.trim(), Number(size ?? 0));
    }
  }
  for (const [hash] of hashes) {
    const bytes = await input.images.get(hash);
    if (!bytes) throw new Error(`image ${hash} is missing from the image store`);
    const name = imageName(hash, bytes);
    files.push({ name, sha256: hash, size: bytes.byteLength });
    // The bytes were read to learn the type; stream them from a fresh read so memory stays one image at a time.
    zip.addReadStream(
      Readable.from(
        (async function* () {
          const again = await input.images.get(hash);
          if (!again || sha256Hex(again) !== hash) throw new Error(`image ${hash} no longer matches its hash`);
          yield Buffer.from(again.buffer, again.byteOffset, again.byteLength);
        })(),
      ),
      name,
      { mtime },
    );
  }

  const manifest: Manifest = {
    format: FORMAT,
    created_at: input.createdAt.toISOString(),
    created_by: input.createdBy,
    reason: input.reason,
    query: input.query,
    detections: input.rows.length,
    hub_public_key: input.signingKey.publicKeyBase64,
    files,
    ...(removed.size > 0 ? { images_removed_by_retention: [...removed].sort() } : {}),
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  zip.addBuffer(manifestBytes, MANIFEST_FILE, { mtime });
  zip.addBuffer(Buffer.from(`${signManifest(manifestBytes, input.signingKey.secretKey)}\n`), SIGNATURE_FILE, { mtime });
  zip.addBuffer(Buffer.from(`${input.signingKey.publicKeyBase64}\n`), PUBLIC_KEY_FILE, { mtime });
  zip.end();
  return zip.outputStream as unknown as Readable;
}
