/**
 * Issue 10 §1 / issue 19 §2 over real HTTP on loopback: each hostile input that once gave
 * a 500 (or slipped past CSRF) is now a clear 4xx naming the problem, and leaves nothing
 * written. The generated sweep over every route is test/sweep/.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { adminTestContext } from '../../hub/src/admin/admin.test-helper.ts';
import { claimedCollector } from '../../hub/src/collectors/collectors.test-helper.ts';
import { collectors } from '../../hub/src/db/schema/collectors.ts';
import { provisioningTokens } from '../../hub/src/db/schema/provisioning-tokens.ts';
import { createHubApp } from '../../hub/src/app.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { CLAIM_PATH, HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath } from '../../hub/src/platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
// Same deps, a log we can read: info and up.
const app = createHubApp({ ...ctx.deps, log: createLog('info', sink) });
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
const port = (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;
const cookie = admin.client.jar.header();

const post = (path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) =>
  fetch(`${base}${path}`, { method: 'POST', headers, body });
const postJson = (path: string, value: unknown, headers: Record<string, string> = {}) =>
  post(path, JSON.stringify(value), { 'content-type': 'application/json', ...headers });
const count = async (table: typeof collectors | typeof provisioningTokens) => (await ctx.database.db.select().from(table)).length;
async function refused(t: Test, res: Response, status: number, message: RegExp) {
  t.equal(res.status, status);
  const body = (await res.json()) as { error?: { code: string; message: string } };
  t.match(body.error?.message, message);
}

t.test('NUL and lone surrogates: 400 naming the field, on unauthenticated and admin routes', async (t) => {
  await refused(t, await postJson('/auth/login', { email: 'a\u0000@example.test', password: 'x' }), 400, /email: contains a NUL character/);
  await refused(t, await postJson(CLAIM_PATH, { claim_code: 'ALPR-2345-6789', hardware_id: 'HW\uDC00' }), 400, /hardware_id: contains a lone UTF-16 surrogate/);
  const before = await count(collectors);
  await refused(t, await postJson(ADMIN_COLLECTORS_PATH, { site_name: 'Depot\uD800' }, { cookie }), 400, /site_name: contains a lone/);
  await refused(
    t,
    await postJson(ADMIN_COLLECTORS_PATH, { site_name: 'Depot', config: { cameras: [{ id: 'gate', name: 'x\u0000' }] } }, { cookie }),
    400,
    /config\.cameras\.0\.name: contains a NUL/,
  );
  t.equal(await count(collectors), before, 'nothing created');
  const { apiKey } = await claimedCollector(ctx.deps);
  const heartbeat = { uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1, os_version: 'Linux\u0000' };
  await refused(t, await postJson(HEARTBEAT_PATH, heartbeat, { 'x-api-key': apiKey }), 400, /os_version: contains a NUL/);
  const ok = await postJson('/auth/login', { email: '🚗@example.test', password: 'x' });
  t.not(ok.status, 400, 'a surrogate pair (emoji) is ordinary text');
});

t.test('a 5,000-deep config is refused at parse time', async (t) => {
  const before = await count(collectors);
  const deep = `{"site_name":"Deep","config":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
  await refused(t, await post(ADMIN_COLLECTORS_PATH, deep, { 'content-type': 'application/json', cookie }), 400, /nests deeper than 32/);
  t.equal(await count(collectors), before);
});

t.test('malformed form bodies are 400, not "Failed to parse body as FormData"', async (t) => {
  await refused(t, await post('/auth/login', 'email=a', { 'content-type': 'multipart/form-data' }), 400, /malformed multipart/);
  const cut = '--XyZ\r\ncontent-disposition: form-data; name="email"\r\n\r\na@example.test\r\n--XyZ\r\ncontent-disposition: form-da';
  await refused(t, await post('/auth/login', cut, { 'content-type': 'multipart/form-data; boundary=XyZ' }), 400, /malformed multipart/);
  await refused(t, await post('/auth/2fa/verify', 'code=%00', { 'content-type': 'application/x-www-form-urlencoded' }), 400, /code: contains a NUL/);
  await refused(t, await post('/auth/login', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), { 'content-type': 'application/json' }), 400, /UTF-8/);
});

t.test('CSRF: an admin POST with no body and no content type needs the token', async (t) => {
  const { collector_id: id } = (await (await postJson(ADMIN_COLLECTORS_PATH, { site_name: 'Csrf' }, { cookie })).json()) as { collector_id: string };
  const before = await count(provisioningTokens);
  const bare = await fetch(`${base}${adminCollectorPartPath(id, 'provisioning-tokens')}`, { method: 'POST', headers: { cookie } });
  t.equal(bare.status, 403, 'no body, no content type, no token');
  const plain = await post(adminCollectorPartPath(id, 'provisioning-tokens'), 'x', { 'content-type': 'text/plain', cookie });
  t.equal(plain.status, 403, 'text/plain is a simple request too');
  t.equal(await count(provisioningTokens), before, 'no provisioning token created');
  const token = 'A'.repeat(43);
  const withToken = await fetch(`${base}${adminCollectorPartPath(id, 'provisioning-tokens')}`, {
    method: 'POST',
    headers: { cookie: `${cookie}; csrf_token=${token}`, 'x-csrf-token': token },
  });
  t.equal(withToken.status, 201, 'with the double-submit token it works');
  const json = await postJson(adminCollectorPartPath(id, 'provisioning-tokens'), {}, { cookie });
  t.equal(json.status, 201, 'JSON needs a preflight cross-origin: exempt');
});

t.test('a client that drops mid-body is logged at info, not as an unhandled error', async (t) => {
  lines.length = 0;
  await new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":');
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on('close', () => resolve());
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const errors = lines.filter((l) => Number(l['level']) >= 50);
  t.same(errors, [], 'nothing at error level');
  t.ok(
    lines.some((l) => l['level'] === 30 && /aborted/.test(String(l['msg']))),
    'one info line says the client aborted',
  );
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'still serving');
});
