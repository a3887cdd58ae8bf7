/**
 * Test helpers for auth: a hub app over a fresh database with a movable clock, a tiny
 * cookie jar, and users created and enrolled through the real verbs. Not imported by
 * production code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { createHubApp } from '../app.ts';
import { movableClock, type MovableClock } from '../collectors/collectors.test-helper.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { testDatabase, type TestDatabase, type TestHandle } from '../db/database.test-helper.ts';
import type { UserRole } from '../db/schema/users.ts';
import type { HubDeps } from '../hub-deps.ts';
import { openImageStore } from '../images/image-store.ts';
import { createLoadMonitor } from '../ingest/load-monitor.ts';
import { createLog } from '../platform/log.ts';
import { startSetup, verifySetup } from './enrollment.ts';
import { createUser } from './registration.ts';
import { totpCode } from './totp.ts';
import type { UserRow } from './users.ts';

export const TEST_SECRET = 'test-hub-secret-0123456789abcdef-0123456789';

export interface AuthTestContext {
  deps: HubDeps;
  clock: MovableClock;
  database: TestDatabase;
  app: Hono;
}

export async function authTestContext(t: TestHandle, env: Record<string, string> = {}): Promise<AuthTestContext> {
  const database = await testDatabase(t);
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-auth-'));
  const clock = movableClock();
  const config = loadHubConfig({ HUB_PUBLIC_URL: 'https://hub.example.test', HUB_SESSION_SECRET: TEST_SECRET, HUB_DATA_DIR: imageDir, ...env });
  const images = openImageStore(imageDir, { db: database });
  // Close the image store (its appends in flight) before removing its folder.
  t.teardown(async () => {
    await images.close();
    await rm(imageDir, { recursive: true, force: true });
  });
  const deps: HubDeps = { db: database, clock, log: createLog('silent'), config, images, load: createLoadMonitor() };
  return { deps, clock, database, app: createHubApp(deps) };
}

/** Cookies as a browser would keep them (name -> value; Max-Age=0 deletes). */
export class CookieJar {
  readonly values = new Map<string, string>();
  take(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = decodeURIComponent(pair.slice(eq + 1).trim());
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.values.delete(name);
      else this.values.set(name, value);
    }
    return res;
  }
  header(): string {
    return [...this.values].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }
}

export interface Client {
  jar: CookieJar;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<Response>;
  postForm(path: string, body: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
}

/** A browser-like client from `ip` (passed to getConnInfo as the socket address). */
export function client(app: Hono, ip = '198.51.100.7', userAgent = 'tap-test/1.0'): Client {
  const jar = new CookieJar();
  const env = { incoming: { socket: { remoteAddress: ip } } };
  const send = async (path: string, init: RequestInit & { headers: Record<string, string> }) => {
    const cookie = jar.header();
    const headers = { 'user-agent': userAgent, ...(cookie ? { cookie } : {}), ...init.headers };
    return jar.take(await app.request(path, { ...init, headers }, env));
  };
  return {
    jar,
    get: (path, headers = {}) => send(path, { method: 'GET', headers }),
    post: (path, body, headers = {}) => send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    postForm: (path, body, headers = {}) =>
      send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() }),
  };
}

let serial = 0;

export interface TestUser {
  user: UserRow;
  email: string;
  password: string;
  /** Base32 TOTP secret when enrolled. */
  secret?: string;
}

/** A user made with the real verbs; `enrolled` runs setup + first code at the clock's time. */
export async function testUser(ctx: AuthTestContext, role: UserRole, options: { enrolled?: boolean } = {}): Promise<TestUser> {
  serial += 1;
  const email = `user${serial}-${role}@example.test`;
  const password = `correct horse ${serial} battery`;
  const user = await createUser(ctx.deps, { email, password, role });
  if (!user) throw new Error('user exists');
  if (!options.enrolled) return { user, email, password };
  const material = await startSetup(ctx.deps, user);
  await verifySetup(ctx.deps, user, await totpCode(material.secret, ctx.clock.now()), { ip: null, userAgent: null });
  // The setup code's time step is now spent: later codes need the next step.
  ctx.clock.advance(30_000);
  return { user, email, password, secret: material.secret };
}

/** Password + code through HTTP: returns a client holding a full session. */
export async function signedIn(ctx: AuthTestContext, u: TestUser, ip?: string): Promise<Client> {
  if (!u.secret) throw new Error('user not enrolled');
  const c = client(ctx.app, ip);
  ctx.clock.advance(60_000); // a fresh login-rate allowance and a fresh TOTP step
  const login = await c.post('/auth/login', { email: u.email, password: u.password });
  if (login.status !== 200) throw new Error(`login ${login.status}`);
  const verify = await c.post('/auth/2fa/verify', { code: await totpCode(u.secret, ctx.clock.now()) });
  if (verify.status !== 302) throw new Error(`verify ${verify.status}: ${await verify.text()}`);
  return c;
}
