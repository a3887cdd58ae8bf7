import type { Context } from 'hono';
import { authenticateSession, type Role, type SessionUser } from '../auth/middleware.ts';
import type { AuthContext } from '../auth/context.ts';
import { sessionCookie } from '../auth/cookies.ts';
import { AuthFailure } from '../auth/failure.ts';

/**
 * A page's signed-in user, or the response to send instead: the sign-in page (remembering
 * where the user was going) when there is no full session, a plain 403 page for a role
 * that may not see it. The JSON API keeps its own `{detail}` answers; pages answer in pages.
 */
export async function pageUser(deps: AuthContext, c: Context, roles?: readonly Role[]): Promise<SessionUser | Response> {
  try {
    return await authenticateSession(deps, sessionCookie(c), roles ? { roles } : {});
  } catch (err) {
    if (!(err instanceof AuthFailure)) throw err;
    if (err.status === 403 && roles && err.headers['X-2FA-Setup-Required'] === undefined && err.headers['X-Password-Change-Required'] === undefined) {
      return c.text(`${err.message}: this page is for ${roles.join(', ')} accounts.`, 403);
    }
    const next = new URL(c.req.url).pathname;
    return c.redirect(`/login?next=${encodeURIComponent(next)}`, 302);
  }
}

/**
 * Whether this browser's session is one whose password must change first (docs/auth.md): the
 * sign-in page then opens on that step. Asked here rather than by the page's script, whose
 * probe of `/auth/me` answered 401 (a failed request in the console) to everyone signed out.
 */
export async function passwordChangeDue(deps: AuthContext, c: Context): Promise<boolean> {
  const token = sessionCookie(c);
  if (token === undefined) return false;
  try {
    await authenticateSession(deps, token);
    return false;
  } catch (err) {
    if (!(err instanceof AuthFailure)) throw err;
    return err.headers['X-Password-Change-Required'] === 'true';
  }
}
