import { mediaType, parseMultipart } from '@alpr/shared/adapters/multipart';
import { BATCH_METADATA_PART, batchMetadataSchema, MAX_BATCH_DETECTIONS } from '@alpr/shared/protocol/batch';
import { HubError } from '../platform/errors.ts';

/**
 * The batch upload's multipart envelope (docs/protocol.md): a `metadata` JSON part and one
 * part per image. Pure: bytes in, items and image parts out, or a HubError with the status
 * the protocol fixes (415 not multipart, 400 anything malformed). Items are NOT validated
 * here: one bad item must not sink its batch (see batch-items.ts).
 */
export interface BatchUpload {
  /** The `detections` array, each item still unvalidated. */
  items: readonly unknown[];
  /** Image bytes by part name (views into the request body, not copies). */
  parts: ReadonlyMap<string, Uint8Array>;
}

/** Checked before the body is read, so a wrong type never costs a 12 MB read. */
export function assertMultipartFormData(contentType: string | undefined): void {
  if (mediaType(contentType) !== 'multipart/form-data') {
    throw new HubError('unsupported_media_type', 'batch upload must be multipart/form-data');
  }
}

/** The metadata part plus two images per detection. */
const MAX_PARTS = 1 + 2 * MAX_BATCH_DETECTIONS;

export function parseBatchUpload(body: Uint8Array, contentType: string | undefined, maxBytes: number): BatchUpload {
  assertMultipartFormData(contentType);
  const multipart = parseMultipart(body, contentType, { maxBytes, maxParts: MAX_PARTS });
  if (!multipart.ok) throw new HubError('bad_request', multipart.reason);

  let metadata: Uint8Array | undefined;
  const parts = new Map<string, Uint8Array>();
  for (const part of multipart.parts) {
    if (part.name === undefined) throw new HubError('bad_request', 'multipart part without a name');
    if (part.name === BATCH_METADATA_PART) {
      if (metadata) throw new HubError('bad_request', 'more than one metadata part');
      metadata = part.body;
      continue;
    }
    // Two parts under one name would make "which bytes did the hash cover" ambiguous.
    if (parts.has(part.name)) throw new HubError('bad_request', `duplicate part name ${part.name}`);
    parts.set(part.name, part.body);
  }
  if (!metadata) throw new HubError('bad_request', 'missing metadata part');
  return { items: parseMetadata(metadata), parts };
}

function parseMetadata(bytes: Uint8Array): readonly unknown[] {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    throw new HubError('bad_request', 'metadata part is not valid JSON');
  }
  const parsed = batchMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new HubError('bad_request', `metadata is not a batch: ${where}${issue?.message ?? 'invalid'}`);
  }
  return parsed.data.detections;
}
