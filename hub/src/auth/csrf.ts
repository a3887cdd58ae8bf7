import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { DETAIL } from './failure.ts';
import { bodyEncoding } from '@alpr/shared/http/inspect-body';
import { SESSION_COOKIE } from './cookies.ts';

export const CSRF_COOKIE = 'csrf_token';
export const CSRF_FIELD = 'csrf_token';
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * Double-submit token (docs/security.md "Hostile input", docs/auth.md "CSRF"). Any site can
 * make a browser send a "simple" cross-site request without a preflight: a POST whose
 * content type is absent, `text/plain` or one of the two form encodings. SameSite=Lax keeps
 * the session cookie off cross-site POSTs, but not off same-site ones (a sibling subdomain
 * or port), login itself needs no cookie (login CSRF), and older browsers differ. So every
 * such POST must echo the `csrf_token` cookie in an `X-CSRF-Token` header or a `csrf_token`
 * form field; a foreign page can neither read nor set that cookie. Only `application/json`
 * POSTs are exempt: cross-origin they need a CORS preflight the hub never grants. A POST
 * with no body and no content type is NOT exempt (it once created a provisioning token).
 * PUT, PATCH and DELETE always need a preflight cross-origin, so they are not simple.
 */
export function issueCsrfToken(c: Context, config: HubConfig): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  // Readable by page scripts on purpose (they copy it into forms); it grants nothing alone.
  setCookie(c, CSRF_COOKIE, token, { httpOnly: false, secure: config.secureCookies === true, sameSite: 'Lax', path: '/' });
  return token;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the request cannot be a cross-site forgery, or carries the matching token. */
export async function csrfSatisfied(c: Context): Promise<boolean> {
  if (c.req.method !== 'POST') return true;
  const encoding = bodyEncoding(c.req.header('content-type'));
  if (encoding === 'json') return true;
  const cookie = getCookie(c, CSRF_COOKIE);
  if (!cookie) return false;
  const header = c.req.header(CSRF_HEADER);
  if (header !== undefined) return same(header, cookie);
  if (encoding !== 'urlencoded' && encoding !== 'multipart') return false;
  // Only read the form when no header carries the token: routes that parse their own
  // bodies (camera pushes) are left untouched, and a form that does not parse carries none.
  const field = ((await c.req.parseBody().catch(() => ({}))) as Record<string, unknown>)[CSRF_FIELD];
  return typeof field === 'string' && same(field, cookie);
}

/** Middleware for any domain's state-changing routes. */
export function csrfProtection(): MiddlewareHandler {
  return async (c, next) => {
    if (!(await csrfSatisfied(c))) return c.json({ detail: DETAIL.csrf }, 403);
    await next();
    return undefined;
  };
}

/**
 * App-wide: every POST that carries a session cookie passes the CSRF check, whatever route
 * it reaches (today's and tomorrow's). Requests without the cookie carry no ambient
 * authority to forge (collectors and cameras authenticate by key); routes that need the
 * check without a session (login) mount `csrfProtection()` themselves.
 */
export function csrfForSessions(): MiddlewareHandler {
  const check = csrfProtection();
  return async (c, next) => {
    if (getCookie(c, SESSION_COOKIE) === undefined) return next();
    return check(c, next);
  };
}
