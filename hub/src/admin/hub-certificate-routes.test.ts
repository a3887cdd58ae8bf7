import t from 'tap';
import { and, eq } from 'drizzle-orm';
import { signedCommandSchema } from '@alpr/shared/protocol/collector';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { commands } from '../db/schema/commands.ts';
import { adminTestContext, reverify, send } from './admin.test-helper.ts';
import { ADMIN_COLLECTORS_PATH, ADMIN_HUB_CERTIFICATE_PATH, adminCollectorPartPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps, clock } = ctx;
const admin = await ctx.session('admin');
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const PATH = ADMIN_HUB_CERTIFICATE_PATH;
const ANNOUNCE = `${PATH}/announce`;

const pairs = (hex: string) => hex.match(/../g)?.join(':') ?? '';
const SERVED = pairs('AB'.repeat(32));
const NEXT_HEX = `${'0123456789abcdef'.repeat(4)}`;
const NEXT = pairs(NEXT_HEX.toUpperCase());

/** What main.ts does once the hub has loaded its certificate and serves TLS itself. */
function servesTls(sha256: string | undefined) {
  deps.config.transport = sha256 === undefined ? 'plain_loopback' : 'https';
  if (sha256 === undefined) delete deps.config.certificateSha256;
  else deps.config.certificateSha256 = sha256;
}
t.teardown(() => servesTls(undefined));

const trustCommands = (collectorId: string) =>
  ctx.database.db
    .select()
    .from(commands)
    .where(and(eq(commands.collectorId, collectorId), eq(commands.type, 'trust_hub_certificate')));
const allTrustCommands = () => ctx.database.db.select().from(commands).where(eq(commands.type, 'trust_hub_certificate'));

t.test('plain HTTP on loopback: no fingerprint to show, and claim codes say so', async (t) => {
  servesTls(undefined);
  const res = await send(ctx, admin, 'GET', PATH);
  t.equal(res.status, 200);
  t.same(await json(res), { sha256: null, serves_tls: false, transport: 'plain_loopback', next_sha256: null });
  const created = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Loopback site' });
  t.match(await json(created), { claim_code: String, hub_certificate_sha256: null });
});

t.test('TLS: the fingerprint is read back and handed out beside every claim code', async (t) => {
  servesTls(SERVED);
  t.same(await json(await send(ctx, admin, 'GET', PATH)), { sha256: SERVED, serves_tls: true, transport: 'https', next_sha256: null });

  const created = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'TLS site' });
  t.equal(created.status, 201);
  const body = await json(created);
  t.match(body, { claim_code: String, hub_certificate_sha256: SERVED }, 'create');
  const again = await send(ctx, admin, 'POST', adminCollectorPartPath(String(body['collector_id']), 'claim-code'));
  t.match(await json(again), { claim_code: String, hub_certificate_sha256: SERVED }, 'new claim code');

  const claimed = await claimedCollector(deps);
  await reverify(ctx, admin);
  const replace = await send(ctx, admin, 'POST', adminCollectorPartPath(claimed.collectorId, 'replace'));
  t.equal(replace.status, 201);
  t.match(await json(replace), { pending_replacement: true, claim_code: String, hub_certificate_sha256: SERVED }, 'replacement');
});

t.test('announce: one signed trust_hub_certificate per claimed collector, none for pending or decommissioned', async (t) => {
  servesTls(SERVED);
  const active = await claimedCollector(deps);
  const suspended = await claimedCollector(deps);
  const gone = await claimedCollector(deps);
  await reverify(ctx, admin);
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(suspended.collectorId, 'suspend'), {})).status, 200);
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(gone.collectorId, 'decommission'), { reason: 'closed' })).status, 200);
  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Not yet claimed' }));
  // Every collector claimed so far in this file (the replaced one included) is still running.
  const running = await ctx.database.sql<{ id: string }>(`SELECT id FROM collectors WHERE status IN ('active', 'disabled')`);
  const before = (await allTrustCommands()).length;

  // Typed as people copy it: lower case, no colons.
  const res = await send(ctx, admin, 'POST', ANNOUNCE, { sha256: NEXT_HEX });
  t.equal(res.status, 202);
  t.same(await json(res), { sha256: NEXT, queued: running.length });
  t.equal((await allTrustCommands()).length - before, running.length, 'one command per running collector');

  const hubKey = active.enrollment.hub_public_key;
  for (const c of [active, suspended]) {
    const rows = await trustCommands(c.collectorId);
    t.equal(rows.length, 1, 'queued for an active and a suspended collector');
    t.same(rows[0]?.payload, { sha256: NEXT }, 'the normalised fingerprint, the form the appliance pins');
  }
  t.equal((await trustCommands(gone.collectorId)).length, 0, 'none for the decommissioned collector');
  t.equal((await trustCommands(String(pending['collector_id']))).length, 0, 'none for the pending collector: it pins at claim');

  // The collector receives it with its next heartbeat, signed with the hub key it got at claim.
  const beat = await ctx.app.request(
    HEARTBEAT_PATH,
    {
      method: 'POST',
      headers: { 'x-api-key': active.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1 }),
    },
    { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
  );
  t.equal(beat.status, 200);
  const delivered = ((await beat.json()) as { pending_commands: unknown[] }).pending_commands.map((c) => signedCommandSchema.parse(c));
  const trust = delivered.find((c) => c.type === 'trust_hub_certificate');
  t.ok(trust, 'delivered with the heartbeat');
  if (trust) {
    t.same(trust.payload, { sha256: NEXT });
    t.equal(trust.collector_id, active.collectorId);
    t.ok(verifyCommandSignature(trust, hubKey), 'signed with the hub key the appliance holds');
    t.notOk(verifyCommandSignature({ ...trust, payload: { sha256: SERVED } }, hubKey), 'the signature covers the fingerprint');
  }

  t.same(await json(await send(ctx, admin, 'GET', PATH)), { sha256: SERVED, serves_tls: true, transport: 'https', next_sha256: NEXT }, 'shown as next');
  const audit = await ctx.database.sql<{ detail: Record<string, unknown> }>(
    `SELECT detail FROM audit_log WHERE action = 'admin.hub_certificate.announce' AND actor_user_id = $1 ORDER BY id DESC LIMIT 1`,
    [admin.user.user.id],
  );
  t.match(audit[0]?.detail, { outcome: 'succeeded', status: 202, sha256: NEXT, queued: running.length }, 'audited with who and how many');
  const verbRow = await ctx.database.sql<{ detail: Record<string, unknown> }>(
    `SELECT detail FROM audit_log WHERE action = 'hub.certificate_announced' ORDER BY id DESC LIMIT 1`,
  );
  t.match(verbRow[0]?.detail, { sha256: NEXT, queued: running.length, served_sha256: SERVED });

  // The switch (step 4): the hub now serves the announced certificate; nothing is "next" any more.
  servesTls(NEXT);
  t.same(await json(await send(ctx, admin, 'GET', PATH)), { sha256: NEXT, serves_tls: true, transport: 'https', next_sha256: null });
  servesTls(SERVED);
});

t.test('refusals: bad fingerprints and hostile bodies are 400/415, the served one 409; nothing queued', async (t) => {
  servesTls(SERVED);
  await claimedCollector(deps);
  await reverify(ctx, admin);
  const before = (await allTrustCommands()).length;
  const bad: unknown[] = [
    {},
    { sha256: '' },
    { sha256: 'AB'.repeat(31) },
    { sha256: 'AB'.repeat(33) },
    { sha256: 'ZZ'.repeat(32) },
    { sha256: `${'AB:'.repeat(31)}A` },
    { sha256: 12 },
    { sha256: null },
    { sha256: ['AB'.repeat(32)] },
    { sha256: `${NEXT}\u0000` },
    { sha256: 'x'.repeat(200_000) },
    { sha256: NEXT, extra: true },
    [NEXT],
    'null',
  ];
  for (const body of bad) {
    const res = await send(ctx, admin, 'POST', ANNOUNCE, body);
    t.equal(res.status, 400, `refused: ${JSON.stringify(body).slice(0, 60)}`);
    t.match(await json(res), { error: { code: 'bad_request', message: String } });
  }
  const truncated = await send(ctx, admin, 'POST', ANNOUNCE, '{"sha256": "AB');
  t.equal(truncated.status, 400, 'truncated JSON');
  const form = await send(ctx, admin, 'POST', ANNOUNCE, `sha256=${NEXT_HEX}`, { 'content-type': 'application/x-www-form-urlencoded' });
  t.equal(form.status, 403, 'a form post without the CSRF token is refused before its body is read');
  const current = await send(ctx, admin, 'POST', ANNOUNCE, { sha256: SERVED.toLowerCase() });
  t.equal(current.status, 409, 'the certificate served now is not a rotation');
  t.match(await json(current), { error: { code: 'conflict', message: /serves now/ } });
  t.equal((await allTrustCommands()).length, before, 'nothing queued by any refusal');
});

t.test('security: operator and viewer 403, anonymous 401, stale second factor 403; nothing queued', async (t) => {
  servesTls(SERVED);
  await claimedCollector(deps);
  const before = (await allTrustCommands()).length;
  for (const role of ['operator', 'viewer'] as const) {
    const s = await ctx.session(role);
    for (const [method, path, body] of [
      ['GET', PATH, undefined],
      ['POST', ANNOUNCE, { sha256: NEXT }],
    ] as const) {
      const res = await send(ctx, s, method, path, body);
      t.equal(res.status, 403, `${role}: ${method} ${path}`);
      t.same(await res.json(), { detail: 'Insufficient permissions' });
    }
  }
  t.equal((await send(ctx, null, 'GET', PATH)).status, 401, 'anonymous read');
  t.equal((await send(ctx, null, 'POST', ANNOUNCE, { sha256: NEXT })).status, 401, 'anonymous announce');

  clock.advance(301_000);
  const stale = await send(ctx, admin, 'POST', ANNOUNCE, { sha256: NEXT });
  t.equal(stale.status, 403, 'a second factor older than 5 minutes');
  t.equal(stale.headers.get('x-2fa-fresh-required'), 'true');
  t.equal((await send(ctx, admin, 'GET', PATH)).status, 200, 'reading needs no fresh factor');
  t.equal((await allTrustCommands()).length, before, 'nothing queued');
  await reverify(ctx, admin);
  t.equal((await send(ctx, admin, 'POST', ANNOUNCE, { sha256: NEXT })).status, 202, 'after reverify');
});

t.test('the collectors page carries the line the script fills, beside the create form and the replacement claim code', async (t) => {
  const html = await (await send(ctx, admin, 'GET', '/admin/collectors')).text();
  t.equal(html.match(/data-hub-certificate/g)?.length, 2);
});
