/**
 * Test helpers for the admin API: the real hub app over a fresh database (auth/auth.test-helper.ts),
 * signed-in users of each role, and a request helper for any method. Not imported by
 * production code.
 */
import { and, eq } from 'drizzle-orm';
import { authTestContext, signedIn, testUser, type AuthTestContext, type Client, type TestUser } from '../auth/auth.test-helper.ts';
import { totpCode } from '../auth/totp.ts';
import { auditLog } from '../db/schema/audit-log.ts';
import type { TestHandle } from '../db/database.test-helper.ts';

export const ADMIN_IP = '198.51.100.7';
const TEST_CSRF_TOKEN = 'test-csrf-token-0123456789abcdefghijklmnopq';

export interface Session {
  user: TestUser;
  client: Client;
}

export interface AdminTestContext extends AuthTestContext {
  /** A signed-in, enrolled user of the role (second factor proven just now). */
  session(role: 'admin' | 'operator' | 'viewer'): Promise<Session>;
}

export async function adminTestContext(t: TestHandle): Promise<AdminTestContext> {
  const ctx = await authTestContext(t);
  return {
    ...ctx,
    session: async (role) => {
      const user = await testUser(ctx, role, { enrolled: true });
      return { user, client: await signedIn(ctx, user, ADMIN_IP) };
    },
  };
}

/** Any method with the session's cookies; a JSON body when given. */
export async function send(
  ctx: AuthTestContext,
  s: Session | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const h: Record<string, string> = { 'user-agent': 'tap-test/1.0', ...headers };
  let cookie = s?.client.jar.header();
  // A POST with no body is what a dashboard button sends: like the dashboard, echo the
  // double-submit CSRF token (every non-JSON POST needs it, auth/csrf.ts).
  if (cookie && body === undefined && method === 'POST') {
    cookie = `${cookie}; csrf_token=${TEST_CSRF_TOKEN}`;
    h['x-csrf-token'] = TEST_CSRF_TOKEN;
  }
  if (cookie) h['cookie'] = cookie;
  if (body !== undefined && h['content-type'] === undefined) h['content-type'] = 'application/json';
  const init: RequestInit = { method, headers: h };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  return ctx.app.request(path, init, { incoming: { socket: { remoteAddress: ADMIN_IP } } });
}

/** Proves the second factor again (POST /auth/2fa/reverify) at a fresh TOTP step. */
export async function reverify(ctx: AuthTestContext, s: Session): Promise<void> {
  if (!s.user.secret) throw new Error('not enrolled');
  ctx.clock.advance(30_000);
  const res = await s.client.post('/auth/2fa/reverify', { code: await totpCode(s.user.secret, ctx.clock.now()) });
  if (res.status !== 204) throw new Error(`reverify ${res.status}: ${await res.text()}`);
}

/** Audit rows of one action about one target, oldest first. */
export async function auditRows(ctx: AuthTestContext, action: string, targetId: string) {
  const rows = await ctx.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)));
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}
