/**
 * Which target URLs are accepted (docs/webhooks.md "Targets"), pure. HTTPS always; plain
 * HTTP only to this machine (127.0.0.0/8, ::1, localhost), where nothing crosses a network
 * and a receiver beside the hub need not hold a certificate. No credentials in the URL (they
 * would be listed back to every admin); no fragment (never sent).
 */
import { isIP } from 'node:net';

export const MAX_URL_LENGTH = 2000;

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why a URL is refused, or undefined when it is accepted. */
export function targetUrlProblem(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the scheme must be https';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return 'https is required (plain http only to a loopback address)';
  if (url.username || url.password) return 'credentials do not belong in the URL';
  if (url.hash) return 'a fragment is never sent';
  return undefined;
}
