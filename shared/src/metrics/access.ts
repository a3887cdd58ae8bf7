import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Who may read `/metrics` (docs/metrics.md "Access"): a client on loopback, or anyone
 * presenting the configured bearer token. Pure: the route hands in the resolved client
 * address (trusted proxies honoured, http/client-ip.ts) and the Authorization header.
 */
export type MetricsAccess = 'allow' | 'unauthorized' | 'forbidden';

export interface MetricsRequest {
  /** The resolved client address, or null when unknown (no socket). */
  clientAddress: string | null;
  authorization: string | undefined;
  /** The configured token (HUB_METRICS_TOKEN, or the appliance's metrics_token); undefined: loopback only. */
  token: string | undefined;
}

/** 127.0.0.0/8 and ::1 (an IPv4-mapped loopback arrives already unmapped, client-address.ts). */
export function isLoopback(address: string | null): boolean {
  if (address === null) return false;
  const unmapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  if (isIP(unmapped) === 4) return unmapped.startsWith('127.');
  return isIP(unmapped) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(unmapped);
}

/**
 * A presented token must be the right one, from loopback too (a scraper with a stale token
 * should hear about it, not succeed by accident of where it runs). No token: loopback only;
 * elsewhere 401 when a token would help, 403 when none is configured.
 */
export function decideMetricsAccess(request: MetricsRequest): MetricsAccess {
  const presented = bearerOf(request.authorization);
  if (presented !== undefined) {
    return request.token !== undefined && sameSecret(presented, request.token) ? 'allow' : 'unauthorized';
  }
  if (isLoopback(request.clientAddress)) return 'allow';
  return request.token !== undefined ? 'unauthorized' : 'forbidden';
}

/** The token of `Bearer <token>`; '' for a malformed header (never equal to a configured token). */
function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^Bearer ([\x21-\x7e]{1,1024})$/i.exec(header.trim())?.[1] ?? '';
}

/** Constant time in the secret's content and length: both sides hashed to 32 bytes first. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
