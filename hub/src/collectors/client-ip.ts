import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { isIP } from 'node:net';

export interface ClientIpOptions {
  /**
   * Take the address from the right-most `X-Forwarded-For` entry (the one appended by the
   * single reverse proxy in front of the hub). Off by default: without a proxy that
   * overwrites the header, any client could claim any address. See docs/collectors.md.
   */
  trustForwardedFor: boolean;
}

export const DEFAULT_CLIENT_IP_OPTIONS: ClientIpOptions = { trustForwardedFor: false };

/**
 * The request's source address, or null when there is no socket (requests made with
 * `app.request()` in tests). `::ffff:192.0.2.1` is reported as `192.0.2.1`.
 */
export function clientIp(c: Context, options: ClientIpOptions = DEFAULT_CLIENT_IP_OPTIONS): string | null {
  if (options.trustForwardedFor) {
    const forwarded = lastForwarded(c.req.header('x-forwarded-for'));
    if (forwarded) return forwarded;
  }
  return normalizeIp(socketAddress(c));
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // No Node incoming message behind this request (e.g. app.request in a test).
    return undefined;
  }
}

function lastForwarded(header: string | undefined): string | null {
  if (!header) return null;
  const parts = header.split(',').map((p) => p.trim()).filter((p) => p !== '');
  return normalizeIp(parts.at(-1));
}

/** A valid IPv4/IPv6 literal (at most 45 characters, `last_used_ip`), or null. */
export function normalizeIp(address: string | undefined): string | null {
  if (!address) return null;
  const unmapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return isIP(unmapped) !== 0 && unmapped.length <= 45 ? unmapped : null;
}
