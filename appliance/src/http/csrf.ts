import type { MiddlewareHandler } from 'hono';
import { bodyEncoding } from '@alpr/shared/http/inspect-body';
import { ApplianceError } from '../errors.ts';

/**
 * CSRF for the setup page's POSTs (docs/security.md "Hostile input"). Any web page a LAN
 * user opens can make the browser send a "simple" POST to the appliance: no content type,
 * `text/plain` or a form encoding. Hono's `csrf()` checks the Origin of form posts only,
 * so a POST with no body and no content type went through. Here every POST except
 * `application/json` (which needs a CORS preflight the appliance never grants) must come
 * from the page itself: an `Origin` equal to the request's own origin, or, from a browser
 * that sends none, `Sec-Fetch-Site: same-origin`.
 */
export function sameOriginPosts(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST' || bodyEncoding(c.req.header('content-type')) === 'json') return next();
    const origin = c.req.header('origin');
    const own = new URL(c.req.url).origin;
    const sameOrigin = origin !== undefined ? origin === own : c.req.header('sec-fetch-site') === 'same-origin';
    if (!sameOrigin) throw new ApplianceError('forbidden', 'cross-site request refused');
    return next();
  };
}
