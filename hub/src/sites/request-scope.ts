/**
 * The scope of the request's signed-in user, asked once per request and remembered only on
 * that request's context (never across requests: a change to the user's sites holds at once).
 */
import type { Context } from 'hono';
import type { DbSession } from '../db/session.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { siteScopeOf, type SiteScope } from './scope.ts';

const perRequest = new WeakMap<Context, Promise<SiteScope>>();

export function requestScope(db: DbSession, c: Context<AuthEnv>): Promise<SiteScope> {
  let scope = perRequest.get(c);
  if (!scope) {
    scope = siteScopeOf(db, c.get('user'));
    perRequest.set(c, scope);
  }
  return scope;
}
