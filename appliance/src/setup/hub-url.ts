/**
 * The hub URL typed on the setup page. Pure. https is required (keys travel only over TLS;
 * docs/security.md) except to a hub on this very machine (loopback)
 * or when the installation explicitly allows plain http (a lab hub). No user info, query
 * or fragment: the enrollment paths are appended to it.
 */
export type HubUrlCheck = { ok: true; url: string } | { ok: false; message: string };

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function checkHubUrl(raw: string, options: { allowPlainHttp: boolean }): HubUrlCheck {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'The hub URL is not a URL (example: https://hub.example.com).' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, message: 'The hub URL must start with https://.' };
  if (url.protocol === 'http:' && !options.allowPlainHttp && !LOOPBACK.test(url.hostname)) {
    return { ok: false, message: 'The hub URL must use https:// (the API key must only travel over TLS).' };
  }
  if (url.username || url.password || url.search || url.hash) return { ok: false, message: 'The hub URL must not contain a user, a query or a fragment.' };
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
