import type { DetectionImages, ImageKind } from './schema.ts';

/**
 * Images are judged by their bytes, never by the label a camera put on them: a real vendor_a
 * capture carries 11 bytes of text in a part labelled `image/jpeg`. The hub can serve JPEG and
 * PNG, so those two signatures are the whole list.
 *
 * 4 MiB per image: a 4K full scene at high quality is 1.5-3 MB and a plate crop 10-30 KB
 * (the sizes cameras send); anything larger is not a camera still, and one such image would crowd a
 * batch.
 */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

const JPEG_SOI = [0xff, 0xd8, 0xff] as const;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

const startsWith = (bytes: Uint8Array, signature: readonly number[]): boolean => bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);

export type ImageVerdict = { ok: true; format: 'jpeg' | 'png' } | { ok: false; reason: string };

/** Whether `bytes` are an image the hub can serve. */
export function checkImageContent(bytes: Uint8Array, maxBytes = MAX_IMAGE_BYTES): ImageVerdict {
  if (bytes.length === 0) return { ok: false, reason: 'empty' };
  if (bytes.length > maxBytes) return { ok: false, reason: `${bytes.length} bytes, over the ${maxBytes}-byte limit` };
  // A JPEG needs more than its 3-byte start marker to be a picture: SOI plus one segment.
  if (startsWith(bytes, JPEG_SOI) && bytes.length >= 4) return { ok: true, format: 'jpeg' };
  if (startsWith(bytes, PNG_SIGNATURE) && bytes.length > PNG_SIGNATURE.length) return { ok: true, format: 'png' };
  const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return { ok: false, reason: `not a JPEG or PNG (starts ${head})` };
}

export interface ImageDrop {
  kind: ImageKind;
  size: number;
  reason: string;
}

/** The images worth keeping, and what was dropped and why (the read itself is always kept). */
export function servableImages(images: DetectionImages, maxBytes = MAX_IMAGE_BYTES): { images: DetectionImages; dropped: ImageDrop[] } {
  const kept: DetectionImages = {};
  const dropped: ImageDrop[] = [];
  for (const [kind, bytes] of Object.entries(images) as [ImageKind, Uint8Array | undefined][]) {
    if (!bytes) continue;
    const verdict = checkImageContent(bytes, maxBytes);
    if (verdict.ok) kept[kind] = bytes;
    else dropped.push({ kind, size: bytes.length, reason: verdict.reason });
  }
  return { images: kept, dropped };
}
