import type { MiddlewareHandler } from 'hono';

/**
 * Headers of every dashboard page and asset (docs/dashboard.md "Security"). Scripts and
 * styles come only from the hub itself: no inline script or style is allowed, so an
 * injected `<script>` in a plate or a note never runs. Images: the hub's own signed links and
 * the QR code's data URI. The live channel is same-origin (`ws:`/`wss:` on the page's host).
 */
export function pageHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const host = c.req.header('host') ?? '';
    const sockets = host ? ` ws://${host} wss://${host}` : '';
    c.header(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'${sockets}; ` +
        `media-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    c.header('X-Frame-Options', 'DENY');
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  };
}
