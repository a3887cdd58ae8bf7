import { IMAGE_PATH_PREFIX } from '../../platform/http/paths.ts';

/**
 * A signed image link as a same-origin path: the hub signs links on its public URL, and the
 * page may be open under another name for the same hub (the CSP allows only 'self').
 */
export function imagePath(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, 'http://x');
    return u.pathname.startsWith(IMAGE_PATH_PREFIX) ? `${u.pathname}${u.search}` : null;
  } catch {
    return null;
  }
}
