import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../config.ts';
import { DETAIL } from './failure.ts';
import { bodyKind } from './request.ts';

export const CSRF_COOKIE = 'csrf_token';
export const CSRF_FIELD = 'csrf_token';
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * Double-submit token for HTML form posts. Any site can make a browser submit a form
 * (urlencoded or multipart) without a preflight; SameSite=Lax keeps the session cookie off
 * cross-site POSTs, but login itself needs no cookie (login CSRF) and older browsers
 * differ. So every form POST must echo the `csrf_token` cookie in a `csrf_token` field (or
 * `X-CSRF-Token` header); a cross-site page can neither read nor set that cookie. JSON
 * posts are exempt: cross-site `application/json` needs a CORS preflight the hub never
 * grants. Any other content type is refused by the body reader.
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

/** True when the request is a form POST whose token matches its cookie, or not a form POST. */
export async function csrfSatisfied(c: Context): Promise<boolean> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return true;
  if (bodyKind(c) !== 'form') return true;
  const cookie = getCookie(c, CSRF_COOKIE);
  if (!cookie) return false;
  const body = await c.req.parseBody();
  const field = body[CSRF_FIELD];
  const given = typeof field === 'string' ? field : c.req.header(CSRF_HEADER);
  return given !== undefined && same(given, cookie);
}

/** Middleware for any domain's state-changing routes that accept form posts. */
export function csrfProtection(): MiddlewareHandler {
  return async (c, next) => {
    if (!(await csrfSatisfied(c))) return c.json({ detail: DETAIL.csrf }, 403);
    await next();
    return undefined;
  };
}
