import { createHash } from 'node:crypto';
import type { ParsedDetection } from '../../shared/src/adapters/types.ts';

/**
 * The parse command's output item: the common detection with images described by size and
 * SHA-256 (never inlined: a capture can hold hundreds of KB of JPEG) and the images the
 * camera must still be asked for.
 */
export function describeDetection(parsed: ParsedDetection): Record<string, unknown> {
  const images = Object.fromEntries(
    Object.entries(parsed.images)
      .filter(([, bytes]) => bytes !== undefined && bytes.length > 0)
      .map(([kind, bytes]) => [kind, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }]),
  );
  return {
    ...parsed.detection,
    images,
    ...(parsed.fetchImages.length > 0 ? { images_to_fetch: parsed.fetchImages } : {}),
    // The vendor's own values (make/model codes, raw classes): what the detection left out.
    ...(parsed.raw && Object.keys(parsed.raw).length > 0 ? { vendor_raw: parsed.raw } : {}),
  };
}
