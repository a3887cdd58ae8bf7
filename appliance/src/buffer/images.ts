import { createHash } from 'node:crypto';
import { IMAGE_KINDS, type DetectionImages, type ImageKind } from '@alpr/shared/detection/schema';

/** An image as buffered and uploaded: its bytes with the hash the hub verifies. */
export interface StoredImage {
  bytes: Uint8Array;
  sha256: string;
  size: number;
}
export type StoredImages = Partial<Record<ImageKind, StoredImage>>;

export interface PreparedImage extends StoredImage {
  kind: ImageKind;
}

/** Hashes the images worth keeping; a zero-length image means "no image" (common format). */
export function prepareImages(images: DetectionImages): PreparedImage[] {
  const out: PreparedImage[] = [];
  for (const kind of IMAGE_KINDS) {
    const bytes = images[kind];
    if (bytes === undefined || bytes.byteLength === 0) continue;
    out.push({ kind, bytes, size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}

/** A view for the blob column without copying the bytes. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
