/**
 * Time-limited image links (docs/live.md: `image_urls`; docs/images.md).
 * The link is the capability, like a presigned object-store URL, so it works in an <img>
 * tag, a messaging bot's photo or a download without a session: an HMAC-SHA256 over the
 * path and the expiry, with a key derived from the hub secret (every hub process that
 * shares HUB_SESSION_SECRET verifies every other's links). Pure.
 */
import { IMAGE_PATH_PREFIX } from '../http/paths.ts';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** 15 minutes: long enough to open an alert and its pictures, short enough that a forwarded link dies. */
export const IMAGE_LINK_TTL_SECONDS = 15 * 60;

function signature(key: Buffer, path: string, expires: number): string {
  return createHmac('sha256', key).update(`${path}\n${expires}`).digest('base64url');
}

/** `/api/v1/images/<sha256>?exp=<unix seconds>&sig=<base64url>` on `base` (the hub's public URL). */
export function signImageLink(key: Buffer, base: string, sha256: string, now: Date, ttlSeconds: number = IMAGE_LINK_TTL_SECONDS): string {
  const path = `${IMAGE_PATH_PREFIX}${sha256}`;
  const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
  return `${base.replace(/\/+$/, '')}${path}?exp=${expires}&sig=${signature(key, path, expires)}`;
}

export type LinkVerdict = 'ok' | 'expired' | 'invalid';

/** `expires` and `sig` as they came in the query (anything); the path as requested. */
export function verifyImageLink(key: Buffer, path: string, expires: string | undefined, sig: string | undefined, now: Date): LinkVerdict {
  if (!expires || !sig || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return 'invalid';
  const wanted = Buffer.from(signature(key, path, Number(expires)));
  const given = Buffer.from(sig);
  if (wanted.length !== given.length || !timingSafeEqual(wanted, given)) return 'invalid';
  return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'ok';
}

/** What a payload builder needs to sign its image links: the key, the public base URL, the moment. */
export interface LinkSigner {
  key: Buffer;
  baseUrl: string;
  now: Date;
}

/** The signed link of a stored image, or null when the detection came without it. */
export function imageLink(signer: LinkSigner, sha256: string | null): string | null {
  return sha256 ? signImageLink(signer.key, signer.baseUrl, sha256.trim(), signer.now) : null;
}
