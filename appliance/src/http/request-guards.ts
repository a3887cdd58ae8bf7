import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { isIP } from 'node:net';
import { ApplianceError } from '../errors.ts';
import { classifyAddress } from '../network/lan-address.ts';

/**
 * The setup page's request guards (docs/setup-page.md "LAN only"):
 * - the TCP peer address must be a LAN address (X-Forwarded-For is never read: nothing
 *   sits in front of the appliance, and any client could write it);
 * - the Host header must be an IP literal, `localhost`, an mDNS `.local` name or a name the
 *   installation lists, so a public web page cannot reach the setup page through DNS
 *   rebinding (its own domain re-pointed at the appliance's LAN address).
 */
export type AddressOf = (c: Context) => string | undefined;

export const socketAddress: AddressOf = (c) => {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // No Node socket behind this request (app.request() in a test): unknown, so refused.
    return undefined;
  }
};

const forbidden = (message: string): never => {
  throw new ApplianceError('forbidden', message);
};

export function lanOnly(addressOf: AddressOf): MiddlewareHandler {
  return async (c, next) => {
    if (classifyAddress(addressOf(c)) !== 'lan') return forbidden('the setup interface answers the local network only');
    await next();
  };
}

/** Host header to its host name: `[::1]:8080` -> `::1`, `appliance.local:8080` -> `appliance.local`. */
export function hostNameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader);
  if (bracketed) return bracketed[1];
  return hostHeader.replace(/:\d+$/, '').toLowerCase();
}

export function isAcceptedHost(hostHeader: string | undefined, extraNames: readonly string[]): boolean {
  const name = hostNameOf(hostHeader);
  if (!name) return false;
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.local')) return true;
  return extraNames.some((n) => n.toLowerCase() === name);
}

export function knownHostOnly(extraNames: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    if (!isAcceptedHost(c.req.header('host'), extraNames)) return forbidden('open the setup page by the appliance address');
    await next();
  };
}
