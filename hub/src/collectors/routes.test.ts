import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { enrollmentResponseSchema, signedCommandSchema } from '@alpr/shared/protocol/collector';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { createHubApp } from '../app.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { apiKeys } from '../db/schema/api-keys.ts';
import { collectors } from '../db/schema/collectors.ts';
import type { HubDeps } from '../hub-deps.ts';
import { openImageStore } from '../images/image-store.ts';
import { createLoadMonitor } from '../ingest/load-monitor.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from './create-collector.ts';
import { issueProvisioningToken } from './provisioning.ts';
import { claimedCollector, collectorTestContext } from './collectors.test-helper.ts';
import { updateConfig } from './update-config.ts';
import { CLAIM_PATH, CLAIM_SHORT_PATH, commandAckPath, HEARTBEAT_PATH, PROVISION_PATH, PROVISION_SHORT_PATH } from '@alpr/shared/protocol/paths';

const ctx = await collectorTestContext(t);
const imageDir = await mkdtemp(join(tmpdir(), 'alpr-collector-routes-'));
t.teardown(() => rm(imageDir, { recursive: true, force: true }));
const deps: HubDeps = { ...ctx, images: openImageStore(imageDir, { db: ctx.db }), load: createLoadMonitor() };
const beat = { uptime_seconds: 5, queue_depth: 0, cameras_online: 1, config_version: 1 };

function post(app: ReturnType<typeof createHubApp>, path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

t.test('claim over HTTP on both paths, with reasons on refusal', async (t) => {
  const app = createHubApp(deps);
  const a = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'HTTP A' });
  const res = await post(app, CLAIM_PATH, { claim_code: a.claimCode, hardware_id: 'SN-HTTP-A' });
  t.equal(res.status, 200);
  t.ok(enrollmentResponseSchema.safeParse(await res.json()).success);
  t.ok(res.headers.get('x-ratelimit-limit'), 'rate limit headers');

  const reused = await post(app, CLAIM_SHORT_PATH, { claim_code: a.claimCode, hardware_id: 'SN-HTTP-B' });
  t.equal(reused.status, 410);
  t.same(await reused.json(), { error: { code: 'gone', message: 'claim code was already used; ask the admin for a new one', reason: 'claim_code_used' } });

  const unknown = await post(app, CLAIM_SHORT_PATH, { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-HTTP-B' });
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { error: { code: 'not_found', reason: 'claim_code_unknown' } });

  const b = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'HTTP B' });
  const taken = await post(app, CLAIM_SHORT_PATH, { claim_code: b.claimCode, hardware_id: 'SN-HTTP-A' });
  t.equal(taken.status, 409);
  t.match(await taken.json(), { error: { code: 'conflict', reason: 'hardware_already_registered' } });

  const malformed = await post(app, CLAIM_SHORT_PATH, '{"claim_code": ');
  t.equal(malformed.status, 400);
  t.match(await malformed.json(), { error: { code: 'bad_request', message: 'request body must be JSON' } });
  const huge = await post(app, CLAIM_SHORT_PATH, { claim_code: b.claimCode, hardware_id: 'x'.repeat(70_000) });
  t.equal(huge.status, 413, 'bodies over 64 KB are refused before parsing');
  t.match(await huge.json(), { error: { code: 'payload_too_large' } });
  const invalid = await post(app, CLAIM_SHORT_PATH, { claim_code: b.claimCode });
  t.equal(invalid.status, 400);
  t.match(await invalid.json(), { error: { code: 'bad_request', message: /hardware_id/ } });
});

t.test('provision over HTTP on both paths', async (t) => {
  const app = createHubApp(deps);
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'HTTP prov' });
  const token = await issueProvisioningToken(ctx, SYSTEM_ACTOR, created.collectorId);
  const res = await post(app, PROVISION_SHORT_PATH, { provisioning_token: token.token });
  t.equal(res.status, 200);
  t.match(await res.json(), { collector_id: created.collectorId, api_key: /^alpr_/, central_url: ctx.config.publicUrl });
  const again = await post(app, PROVISION_PATH, { provisioning_token: token.token });
  t.equal(again.status, 410);
  t.match(await again.json(), { error: { reason: 'provisioning_token_used' } });
});

t.test('heartbeat and ack need a valid X-API-Key; signed commands verify', async (t) => {
  const app = createHubApp(deps);
  const { collectorId, apiKey, enrollment } = await claimedCollector(ctx);
  const noKey = await post(app, HEARTBEAT_PATH, beat);
  t.equal(noKey.status, 401);
  t.same(await noKey.json(), { error: { code: 'unauthorized', message: 'missing or invalid API key' } });
  const tampered = `alpr_${apiKey[5] === 'A' ? 'B' : 'A'}${apiKey.slice(6)}`;
  t.equal((await post(app, HEARTBEAT_PATH, beat, { 'x-api-key': tampered })).status, 401, 'one character changed');

  const { commandId } = await updateConfig(ctx, SYSTEM_ACTOR, collectorId, { window_seconds: 10 });
  const res = await post(app, HEARTBEAT_PATH, beat, { 'x-api-key': apiKey });
  t.equal(res.status, 200);
  const body = (await res.json()) as { pending_commands: unknown[]; heartbeat_interval_seconds: number; server_time: string };
  t.equal(body.heartbeat_interval_seconds, 60);
  t.equal(body.server_time, ctx.clock.now().toISOString());
  const command = signedCommandSchema.parse(body.pending_commands[0]);
  t.equal(command.id, commandId);
  t.ok(verifyCommandSignature(command, enrollment.hub_public_key));

  const bad = await post(app, HEARTBEAT_PATH, { ...beat, queue_depth: -1 }, { 'x-api-key': apiKey });
  t.equal(bad.status, 400);

  const other = await claimedCollector(ctx);
  const stranger = await post(app, commandAckPath(command.id), { status: 'success' }, { 'x-api-key': other.apiKey });
  t.equal(stranger.status, 404, "another collector's command does not exist for it");
  const badStatus = await post(app, commandAckPath(command.id), { status: 'done' }, { 'x-api-key': apiKey });
  t.equal(badStatus.status, 400);
  const ack = await post(app, commandAckPath(command.id), { status: 'success' }, { 'x-api-key': apiKey });
  t.equal(ack.status, 200);
  t.same(await ack.json(), { id: command.id, acknowledged: true, status: 'success', acknowledged_at: ctx.clock.now().toISOString() });
  const after = (await (await post(app, HEARTBEAT_PATH, beat, { 'x-api-key': apiKey })).json()) as { pending_commands: unknown[] };
  t.same(after.pending_commands, []);
});

t.test('claim attempts are limited to 10 a minute per address', async (t) => {
  const app = createHubApp(deps);
  for (let i = 0; i < 10; i++) {
    const res = await post(app, CLAIM_SHORT_PATH, { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-RL' });
    t.equal(res.status, 404, `attempt ${i + 1} reaches the verb`);
  }
  const limited = await post(app, PROVISION_PATH, { provisioning_token: 'x' });
  t.equal(limited.status, 429, 'provision shares the bucket');
  t.equal(limited.headers.get('retry-after'), '6');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.match(await limited.json(), { error: { code: 'rate_limited' } });
  ctx.clock.advance(6_000);
  t.equal((await post(app, CLAIM_SHORT_PATH, { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-RL' })).status, 404, 'allowed again after Retry-After');
});

t.test('through a real listener: the socket address is recorded, X-Forwarded-For ignored', async (t) => {
  const app = createHubApp(deps);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.99', ...headers },
      body: JSON.stringify(body),
    });

  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Socket' });
  const claimed = await send(CLAIM_SHORT_PATH, { claim_code: created.claimCode, hardware_id: 'SN-SOCKET' });
  t.equal(claimed.status, 200);
  const { api_key: apiKey } = enrollmentResponseSchema.parse(await claimed.json());
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.claimedFromIp, '127.0.0.1');

  const beatRes = await send(HEARTBEAT_PATH, beat, { 'x-api-key': apiKey });
  t.equal(beatRes.status, 200);
  const [key] = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.collectorId, created.collectorId));
  t.equal(key?.lastUsedIp, '127.0.0.1');
  t.equal(key?.lastUsedAt?.getTime(), ctx.clock.now().getTime());
});

/** POST from a chosen loopback source address (undici's fetch cannot pick one). */
function postFrom(base: string, localAddress: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function listen(app: ReturnType<typeof createHubApp>, t: Test): Promise<string> {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('behind a trusted proxy: X-Forwarded-For is the client for last_used_ip and rate limits; from anyone else it is ignored', async (t) => {
  const config = loadHubConfig({ HUB_PUBLIC_URL: 'https://hub.example.test', HUB_TRUSTED_PROXIES: '127.0.0.1' });
  const base = await listen(createHubApp({ ...deps, config }), t);
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Proxied' });
  const claimed = await postFrom(
    base,
    '127.0.0.1',
    CLAIM_SHORT_PATH,
    { claim_code: created.claimCode, hardware_id: 'SN-PROXIED' },
    { 'x-forwarded-for': '203.0.113.7, 198.51.100.20' },
  );
  t.equal(claimed.status, 200);
  const { api_key: apiKey } = enrollmentResponseSchema.parse(claimed.body);
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.claimedFromIp, '198.51.100.20', 'the right-most hop the trusted proxy appended; the left one is client-written');

  const beatVia = (source: string, forwarded: string) => postFrom(base, source, HEARTBEAT_PATH, beat, { 'x-api-key': apiKey, 'x-forwarded-for': forwarded });
  t.equal((await beatVia('127.0.0.1', '192.0.2.44')).status, 200);
  const lastUsedIp = async () => (await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.collectorId, created.collectorId)))[0]?.lastUsedIp;
  t.equal(await lastUsedIp(), '192.0.2.44', 'through the proxy');
  t.equal((await beatVia('127.0.0.2', '192.0.2.45')).status, 200);
  t.equal(await lastUsedIp(), '127.0.0.2', 'a peer outside the trusted list cannot pick its address');

  // The enrollment limit (10/min/address) counts forwarded clients apart.
  for (let i = 0; i < 10; i++) {
    const res = await postFrom(
      base,
      '127.0.0.1',
      CLAIM_SHORT_PATH,
      { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-RL2' },
      { 'x-forwarded-for': '198.51.100.1' },
    );
    t.equal(res.status, 404, `client A attempt ${i + 1}`);
  }
  t.equal(
    (await postFrom(base, '127.0.0.1', CLAIM_SHORT_PATH, { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-RL2' }, { 'x-forwarded-for': '198.51.100.1' }))
      .status,
    429,
    'client A is limited',
  );
  t.equal(
    (await postFrom(base, '127.0.0.1', CLAIM_SHORT_PATH, { claim_code: 'ALPR-ZZZZ-ZZZZ', hardware_id: 'SN-RL2' }, { 'x-forwarded-for': '198.51.100.2' }))
      .status,
    404,
    'client B behind the same proxy is not',
  );
});

t.test('a remote claim through a trusted proxy on a hub without HUB_PUBLIC_URL is refused before the code is used', async (t) => {
  const config = loadHubConfig({ HUB_TRUSTED_PROXIES: '127.0.0.0/8' });
  const base = await listen(createHubApp({ ...deps, config }), t);
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'NoPublicUrl' });
  const refused = await postFrom(
    base,
    '127.0.0.1',
    CLAIM_SHORT_PATH,
    { claim_code: created.claimCode, hardware_id: 'SN-REMOTE' },
    { 'x-forwarded-for': '203.0.113.50' },
  );
  t.equal(refused.status, 503);
  t.match(refused.body, { error: { reason: 'hub_public_url_unset' } });
  const local = await postFrom(base, '127.0.0.1', CLAIM_SHORT_PATH, { claim_code: created.claimCode, hardware_id: 'SN-LOCAL' });
  t.equal(local.status, 200, 'the code was not spent: a claim from the hub machine itself still works');
});

t.test('HUB_TRUSTED_PROXIES with a bad entry stops the hub at start', async (t) => {
  t.throws(() => loadHubConfig({ HUB_TRUSTED_PROXIES: '10.0.0.0/8, proxy.example' }), /HUB_TRUSTED_PROXIES: not an address/);
  t.throws(() => loadHubConfig({ HUB_TRUSTED_PROXIES: '10.0.0.0/33' }), /bad prefix length/);
  t.same(loadHubConfig({ HUB_TRUSTED_PROXIES: ' 10.0.0.1 , fd00::/8 ' }).trustedProxies, ['10.0.0.1', 'fd00::/8']);
});
