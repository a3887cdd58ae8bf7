import { createHash, randomBytes } from 'node:crypto';
import type { Detection, DetectionImages, ImageKind } from '@alpr/shared/detection/schema';
import { IMAGE_KINDS } from '@alpr/shared/detection/schema';
import type { BatchDetection, ImageRef } from '@alpr/shared/protocol/batch';
import { BATCH_METADATA_PART } from '@alpr/shared/protocol/batch';

/**
 * The multipart/form-data body of `POST /api/v1/detections/batch` (shared/protocol/batch.ts):
 * first the `metadata` JSON part (so a streaming parser learns the image parts it should
 * expect before their bytes arrive), then one `image/jpeg` part per image, named
 * `img-<index>-<kind>`, its SHA-256 and size listed in the metadata.
 */
export interface EncodableItem {
  detection: Detection;
  images: DetectionImages;
}

export interface EncodedBatch {
  /** Body pieces in order; `Buffer.concat(chunks)` is the body. */
  chunks: Buffer[];
  contentType: string;
  boundary: string;
  byteLength: number;
  /** The `detections` array as sent: index i is items[i]. */
  detections: BatchDetection[];
}

const CRLF = '\r\n';
const MAX_BOUNDARY_TRIES = 8;

export const imagePartName = (index: number, kind: ImageKind): string => `img-${index}-${kind}`;

/** 24 random bytes as hex: RFC 2046 allows up to 70 characters from a safe set. */
export const randomBoundary = (): string => `alpr-${randomBytes(24).toString('hex')}`;

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

interface PendingPart {
  headers: string;
  data: Buffer;
}

function buildParts(items: readonly EncodableItem[]): { parts: PendingPart[]; detections: BatchDetection[] } {
  const imageParts: PendingPart[] = [];
  const detections: BatchDetection[] = items.map((item, index) => {
    const refs: Partial<Record<ImageKind, ImageRef>> = {};
    for (const kind of IMAGE_KINDS) {
      const bytes = item.images[kind];
      // A zero-length image means "no image" (shared DetectionImages).
      if (!bytes || bytes.byteLength === 0) continue;
      const part = imagePartName(index, kind);
      refs[kind] = { part, sha256: sha256Hex(bytes), size: bytes.byteLength };
      imageParts.push({
        headers: `Content-Disposition: form-data; name="${part}"; filename="${part}.jpg"${CRLF}` + `Content-Type: image/jpeg${CRLF}`,
        data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      });
    }
    return Object.keys(refs).length > 0 ? { ...item.detection, images: refs } : { ...item.detection };
  });
  const metadata: PendingPart = {
    headers: `Content-Disposition: form-data; name="${BATCH_METADATA_PART}"${CRLF}` + `Content-Type: application/json${CRLF}`,
    data: Buffer.from(JSON.stringify({ detections }), 'utf8'),
  };
  return { parts: [metadata, ...imageParts], detections };
}

/**
 * Encodes items in the given order. `makeBoundary` is injectable so a test can force a
 * collision; a boundary found inside any part is replaced (JPEG bytes are arbitrary).
 */
export function encodeBatch(items: readonly EncodableItem[], makeBoundary: () => string = randomBoundary): EncodedBatch {
  if (items.length === 0) throw new Error('encodeBatch: a batch needs at least one detection');
  const { parts, detections } = buildParts(items);
  let boundary = '';
  for (let attempt = 0; ; attempt += 1) {
    if (attempt === MAX_BOUNDARY_TRIES) throw new Error('encodeBatch: no boundary absent from the parts');
    boundary = makeBoundary();
    const needle = Buffer.from(boundary, 'latin1');
    if (!parts.some((part) => part.data.includes(needle))) break;
  }
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}${CRLF}${part.headers}${CRLF}`, 'latin1'), part.data, Buffer.from(CRLF));
  }
  chunks.push(Buffer.from(`--${boundary}--${CRLF}`, 'latin1'));
  const byteLength = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  return {
    chunks,
    contentType: `multipart/form-data; boundary=${boundary}`,
    boundary,
    byteLength,
    detections,
  };
}
