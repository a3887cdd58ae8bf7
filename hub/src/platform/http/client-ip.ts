import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { normalizeIp, resolveClientAddress, type TrustedProxies } from './client-address.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Resolved once per request by `clientAddressEdge` (trusted proxies honoured). */
    clientAddress: string | null;
  }
}

/**
 * First middleware of the hub app: resolves the client's address once, so every rate
 * limit, audit row and `last_used_ip` agrees on who sent the request.
 */
export function clientAddressEdge(trusted: TrustedProxies): MiddlewareHandler {
  return async (c, next) => {
    c.set('clientAddress', resolveClientAddress(socketAddress(c), c.req.header('x-forwarded-for'), trusted));
    await next();
  };
}

/**
 * The request's client address, or null when unknown (no socket: `app.request()` in a
 * test). Routes mounted without the edge (unit tests of one domain) use the socket peer.
 */
export function clientIp(c: Context): string | null {
  const resolved = c.get('clientAddress');
  return resolved !== undefined ? resolved : normalizeIp(socketAddress(c));
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // No Node incoming message behind this request (e.g. app.request in a test).
    return undefined;
  }
}
