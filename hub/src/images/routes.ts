import { IMAGE_PATH_PREFIX } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { isSha256 } from './image-tree.ts';
import { imageRemovedAt } from './removed.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import type { ImageStore } from './image-store.ts';
import { HubError } from '../platform/errors.ts';
import { verifyImageLink } from '../platform/signed-links/signed-link.ts';

/** What the stored bytes are (ingest accepts JPEG and PNG only, judged by the bytes). */
function contentTypeOf(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  return 'application/octet-stream';
}

/**
 * `GET /api/v1/images/:sha256?exp=&sig=`: an image by its hash, for whoever holds a signed
 * link that has not expired (docs/images.md). Altered or expired: 403, before the store is
 * touched, so a link cannot be used to probe which hashes exist.
 */
export function imageRoutes(deps: Pick<PlatformDeps, 'db' | 'clock' | 'config'> & { images: ImageStore }): Hono {
  const app = new Hono();
  app.get(`${IMAGE_PATH_PREFIX}:sha256`, async (c) => {
    const hash = c.req.param('sha256');
    const now = deps.clock.now();
    const verdict = verifyImageLink(authKeys(deps.config).imageLinkKey, `${IMAGE_PATH_PREFIX}${hash}`, c.req.query('exp'), c.req.query('sig'), now);
    if (verdict !== 'ok') throw new HubError('forbidden', verdict === 'expired' ? 'this image link has expired' : 'this image link is not valid');
    if (!isSha256(hash)) throw new HubError('not_found', 'no such image');
    const bytes = await deps.images.get(hash);
    if (!bytes) {
      const removedAt = await imageRemovedAt(deps.db, hash);
      if (removedAt) throw new HubError('gone', `this image was removed by retention on ${removedAt.toISOString()} (images are kept a year)`);
      throw new HubError('not_found', 'no such image');
    }
    const maxAge = Math.max(0, Number(c.req.query('exp')) - Math.floor(now.getTime() / 1000));
    return c.body(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer, 200, {
      'Content-Type': contentTypeOf(bytes),
      'Cache-Control': `private, max-age=${maxAge}, immutable`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'",
    });
  });
  return app;
}
