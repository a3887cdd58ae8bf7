import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { PARTIAL_TOKEN_SECONDS, SESSION_SECONDS } from './constants.ts';

/** docs/auth.md: HTTP-only cookie `access_token`. */
export const SESSION_COOKIE = 'access_token';

/**
 * Both the partial and the full token travel in `access_token` (a partial token there is
 * what makes a protected resource answer `2FA verification required`). SameSite=Lax: the
 * cookie follows top-level navigations to the hub but not cross-site POSTs or fetches;
 * Secure whenever the hub is reached over TLS (HUB_SECURE_COOKIES / https public URL).
 */
export function setSessionCookie(c: Context, config: HubConfig, token: string, kind: 'partial' | 'access'): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: config.secureCookies === true,
    sameSite: 'Lax',
    path: '/',
    maxAge: kind === 'partial' ? PARTIAL_TOKEN_SECONDS : SESSION_SECONDS,
  });
}

export function clearSessionCookie(c: Context, config: HubConfig): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: config.secureCookies === true, httpOnly: true, sameSite: 'Lax' });
}

export function sessionCookie(c: Context): string | undefined {
  const value = getCookie(c, SESSION_COOKIE);
  return value === undefined || value === '' ? undefined : value;
}
