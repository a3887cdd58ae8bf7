/**
 * Certificate pinning (docs/security.md "Certificate pinning", "Rotating the hub
 * certificate"): a real hub (createHubApp over a fresh database) behind a real TLS 1.3
 * listener with the hub's own self-signed certificate. The setup page claims only once the
 * installer confirms the fingerprint, and pins it; the pinned agent refuses a changed
 * certificate before sending anything; a signed trust_hub_certificate command adds the next
 * pin, both are accepted until the switch is seen, then only the new one.
 */
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import nacl from 'tweetnacl';
import { signCommand } from '@alpr/shared/protocol/signing';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { certificateSha256 } from '../../hub/src/tls/fingerprint.ts';
import { HUB_TLS_VERSIONS } from '../../hub/src/tls/material.ts';
import { createHubAgent, HUB_CERTIFICATE_CHANGED } from '../../appliance/src/hub-api/tls.ts';
import { postJson as postToHubJson } from '../../appliance/src/hub-api/request.ts';
import { HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { createHubPins } from '../../appliance/src/lifecycle/hub-pins.ts';
import { createCommandRunner } from '../../appliance/src/lifecycle/commands.ts';
import type { CommandRunnerDeps } from '../../appliance/src/lifecycle/ports.ts';
import { loadEnrollment } from '../../appliance/src/keystore/keystore.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { postForm, postJson, startSetup } from '../../appliance/src/setup/setup.test-helper.ts';
import { pendingCollector, startTestHub } from './hub-for-appliance.ts';
import { serve } from '@hono/node-server';
import { BATCH_PATH, commandAckPath } from '@alpr/shared/protocol/paths';
import { signedCommandSchema } from '@alpr/shared/protocol/collector';
import { adminTestContext, send } from '../../hub/src/admin/admin.test-helper.ts';
import { claimedCollector } from '../../hub/src/collectors/collectors.test-helper.ts';
import { encodeBatch, sampleDetection } from '../../hub/src/ingest/uploads.test-helper.ts';
import { postToHub } from '../../appliance/src/hub-api/request.ts';
import { ADMIN_HUB_CERTIFICATE_ANNOUNCE_PATH, ADMIN_HUB_CERTIFICATE_PATH, adminCollectorPartPath } from '../../hub/src/platform/http/paths.ts';

const hub = await startTestHub(t);

/** TLS 1.3 in front of the in-process hub, presenting `cert`: what a hub on 0.0.0.0 serves. */
async function tlsFront(t: Test, cert: { keyPem: string; certPem: string }, versions: object = HUB_TLS_VERSIONS, target = hub.base): Promise<string> {
  const server: Server = createServer({ key: cert.keyPem, cert: cert.certPem, ...versions }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k),
        ),
      ) as Record<string, string>;
      fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) })
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const certA = generateSelfSignedCertificate({ names: ['127.0.0.1'], now: new Date() });
const certB = generateSelfSignedCertificate({ names: ['127.0.0.1'], now: new Date() });
const shaA = certificateSha256(certA.certPem);
const shaB = certificateSha256(certB.certPem);

t.test('claim over TLS: refused until the fingerprint is confirmed, then pinned', async (t) => {
  const hubUrl = await tlsFront(t, certA);
  const setup = await startSetup(t);
  const pending = await pendingCollector(hub, {});

  const unconfirmed = await postJson(setup.base, '/setup/claim', { hub_url: hubUrl, claim_code: pending.claimCode });
  t.equal(unconfirmed.status, 400);
  const body = (await unconfirmed.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'hub_certificate_unconfirmed');
  t.match(body.error.message, `Its SHA-256 fingerprint is ${shaA}`, 'the installer is shown the fingerprint to compare');

  const page = await postForm(setup.base, '/setup/claim', { hub_url: hubUrl, claim_code: pending.claimCode });
  t.match(await page.text(), `The hub presented: <code>${shaA}</code>`, 'the form shows what the hub presented, next to the field');

  const wrong = await postJson(setup.base, '/setup/claim', { hub_url: hubUrl, claim_code: pending.claimCode, hub_certificate_sha256: shaB });
  t.equal(wrong.status, 400);
  t.match(await wrong.json(), { error: { code: 'hub_certificate_mismatch', message: /Do not claim/ } });
  t.equal(setup.claimed.length, 0, 'nothing claimed so far: the claim code is still good');

  // Typed as a person copies it: lower case, no colons.
  const typed = shaA.replace(/:/g, '').toLowerCase();
  const ok = await postJson(setup.base, '/setup/claim', { hub_url: hubUrl, claim_code: pending.claimCode, hub_certificate_sha256: typed });
  t.equal(ok.status, 200);
  t.match(await ok.json(), { claimed: true, hub_certificate_sha256: shaA });
  const { enrollment } = await loadEnrollment({ dataDir: setup.dataDir, identity: fixedIdentity(setup.serial) });
  t.equal(enrollment.hub_certificate_sha256, shaA, 'the pin is sealed with the enrollment');
  t.match(await (await fetch(`${setup.base}/`)).text(), shaA, 'the diagnostics page shows the pinned fingerprint');
});

t.test('a pinned agent refuses a changed certificate and a TLS 1.2 hub', async (t) => {
  const urlA = await tlsFront(t, certA);
  const urlB = await tlsFront(t, certB);
  const url12 = await tlsFront(t, certA, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
  const refused: string[] = [];
  const agent = createHubAgent({ trust: { pins: () => [shaA], refused: (sha) => refused.push(sha) } });
  t.teardown(() => agent.close());
  const call = (hubUrl: string) =>
    postToHubJson(
      { hubUrl, dispatcher: agent },
      { path: HEARTBEAT_PATH, apiKey: 'alpr_x', json: {}, timeouts: { headersMs: 5000, bodyMs: 5000 }, maxResponseBytes: 65536 },
    );
  t.match(await call(urlA), { kind: 'reply', status: 401 }, 'the pinned certificate: the hub answers (401 for a made-up key)');
  const changed = await call(urlB);
  t.match(changed, { kind: 'network', error: { code: HUB_CERTIFICATE_CHANGED, message: new RegExp(`SHA-256 ${shaB}, not the pinned ${shaA}`) } });
  t.same(refused, [shaB], 'the refusal reaches the diagnostics');
  t.match(await call(url12), { kind: 'network' }, 'TLS 1.2 only: no connection');
  const unpinned = createHubAgent();
  t.teardown(() => unpinned.close());
  const caChecked = await postToHubJson(
    { hubUrl: urlA, dispatcher: unpinned },
    { path: HEARTBEAT_PATH, json: {}, timeouts: { headersMs: 5000, bodyMs: 5000 }, maxResponseBytes: 65536 },
  );
  t.match(caChecked, { kind: 'network' }, 'unpinned, a self-signed hub is refused by the CA check');
});

t.test('rotation: a signed command adds the next pin; both work until the switch is seen, then only the new one', async (t) => {
  const urlA = await tlsFront(t, certA);
  const urlB = await tlsFront(t, certB);
  const stored: object[] = [];
  const pins = createHubPins(
    { current: shaA },
    { persist: async (p) => void stored.push(p), log: { info: () => undefined, error: () => undefined }, now: () => new Date() },
  );
  const agent = createHubAgent({ trust: pins });
  t.teardown(() => agent.close());
  const call = (hubUrl: string) =>
    postToHubJson(
      { hubUrl, dispatcher: agent },
      { path: HEARTBEAT_PATH, apiKey: 'alpr_x', json: {}, timeouts: { headersMs: 5000, bodyMs: 5000 }, maxResponseBytes: 65536 },
    );
  t.match(await call(urlB), { kind: 'network', error: { code: HUB_CERTIFICATE_CHANGED } }, 'before the announcement: B is refused');

  const hubKeys = nacl.sign.keyPair();
  const collectorId = randomUUID();
  const runner = createCommandRunner({
    collectorId,
    hubPublicKey: Buffer.from(hubKeys.publicKey).toString('base64'),
    hubPins: pins,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  } as unknown as CommandRunnerDeps);
  const command = (payload: Record<string, unknown>, secretKey = hubKeys.secretKey) =>
    signCommand({ id: randomUUID(), collector_id: collectorId, type: 'trust_hub_certificate', payload, issued_at: new Date().toISOString() }, secretKey);

  const forged = await runner.handle(command({ sha256: shaB }, nacl.sign.keyPair().secretKey));
  t.match(forged, { kind: 'ack', refused: true, ack: { status: 'failed' } }, 'a command not signed by the hub adds no pin');
  t.same(pins.pins(), [shaA]);

  const announced = await runner.handle(command({ sha256: shaB.replace(/:/g, '') }));
  t.match(announced, { kind: 'ack', ack: { status: 'success', detail: /will accept the hub certificate SHA-256/ } });
  t.same(pins.pins(), [shaA, shaB]);
  t.same(stored.at(-1), { current: shaA, next: shaB }, 'stored before it is relied on');

  t.match(await call(urlA), { kind: 'reply', status: 401 }, 'before the switch: the old certificate still works');
  t.match(await call(urlB), { kind: 'reply', status: 401 }, 'the hub switched: the new certificate is accepted');
  await pins.settled();
  t.same(pins.pins(), [shaB], 'the switch is seen: the old pin is dropped');
  t.same(stored.at(-1), { current: shaB });
  // Pins are checked per connection; a hub that switched restarted, so its old connections are gone: a new agent here.
  const later = createHubAgent({ trust: pins });
  t.teardown(() => later.close());
  const again = await postToHubJson(
    { hubUrl: urlA, dispatcher: later },
    { path: HEARTBEAT_PATH, json: {}, timeouts: { headersMs: 5000, bodyMs: 5000 }, maxResponseBytes: 65536 },
  );
  t.match(again, { kind: 'network', error: { code: HUB_CERTIFICATE_CHANGED } }, 'the old certificate is refused from then on');
});

t.test('rotation through the hub: announce endpoint -> heartbeat delivers the signed command -> switch -> the appliance still uploads', async (t) => {
  // A hub with admin sessions, behind TLS 1.3 with certificate A, then B (the restart of step 4).
  const admin = await adminTestContext(t);
  const session = await admin.session('admin');
  const server = serve({ fetch: admin.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urlA = await tlsFront(t, certA, HUB_TLS_VERSIONS, base);
  const urlB = await tlsFront(t, certB, HUB_TLS_VERSIONS, base);
  // What main.ts sets once it serves certificate A.
  admin.deps.config.transport = 'https';
  admin.deps.config.certificateSha256 = shaA;
  t.match(await (await send(admin, session, 'GET', ADMIN_HUB_CERTIFICATE_PATH)).json(), { sha256: shaA, serves_tls: true, next_sha256: null });

  // The appliance: claimed with A pinned (the setup-page claim is the first subtest).
  const box = await claimedCollector(admin.deps);
  const pins = createHubPins(
    { current: shaA },
    { persist: async () => undefined, log: { info: () => undefined, error: () => undefined }, now: () => new Date() },
  );
  const agent = createHubAgent({ trust: pins });
  t.teardown(() => agent.close());
  const runner = createCommandRunner({
    collectorId: box.collectorId,
    hubPublicKey: box.enrollment.hub_public_key,
    hubPins: pins,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  } as unknown as CommandRunnerDeps);
  const limits = { timeouts: { headersMs: 5000, bodyMs: 5000 }, maxResponseBytes: 65536 };
  const heartbeat = (hubUrl: string) =>
    postToHubJson(
      { hubUrl, dispatcher: agent },
      { path: HEARTBEAT_PATH, apiKey: box.apiKey, json: { uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1 }, ...limits },
    );
  const upload = (hubUrl: string, plate: string) => {
    const batch = encodeBatch([
      { detection: sampleDetection({ plate: { text: plate, confidence: 0.9 }, timestamp: new Date(admin.clock.now().getTime() - 60_000).toISOString() }) },
    ]);
    return postToHub({ hubUrl, dispatcher: agent }, { path: BATCH_PATH, apiKey: box.apiKey, contentType: batch.contentType, body: batch.body, ...limits });
  };
  t.match(await upload(urlA, 'AA11AAA'), { kind: 'reply', status: 201 }, 'uploads through A');
  t.match(await upload(urlB, 'BB22BBB'), { kind: 'network', error: { code: HUB_CERTIFICATE_CHANGED } }, 'B refused before the announcement');

  // Step 2: the admin announces B (typed without colons).
  const announced = await send(admin, session, 'POST', ADMIN_HUB_CERTIFICATE_ANNOUNCE_PATH, { sha256: shaB.replace(/:/g, '') });
  t.equal(announced.status, 202);
  t.match(await announced.json(), { sha256: shaB, queued: 1 });

  // Step 3: the next heartbeat (through A) carries the signed command; the appliance runs and acknowledges it.
  const beat = await heartbeat(urlA);
  if (beat.kind !== 'reply') throw new Error(`heartbeat: ${beat.kind}`);
  t.equal(beat.status, 200);
  const delivered = (JSON.parse(beat.text) as { pending_commands: unknown[] }).pending_commands.map((c) => signedCommandSchema.parse(c));
  const trust = delivered.find((c) => c.type === 'trust_hub_certificate');
  if (!trust) throw new Error('no trust_hub_certificate delivered');
  const outcome = await runner.handle(trust);
  t.match(outcome, { kind: 'ack', ack: { status: 'success', detail: /will accept the hub certificate SHA-256/ } }, 'signature checked and the pin added');
  t.same(pins.pins(), [shaA, shaB]);
  if (outcome.kind !== 'ack') throw new Error('no ack');
  t.match(await postToHubJson({ hubUrl: urlA, dispatcher: agent }, { path: commandAckPath(trust.id), apiKey: box.apiKey, json: outcome.ack, ...limits }), {
    kind: 'reply',
    status: 200,
  });
  const commandsList = (await (await send(admin, session, 'GET', adminCollectorPartPath(box.collectorId, 'commands'))).json()) as {
    data: { id: string; type: string; ack_status: string | null }[];
  };
  t.match(
    commandsList.data.find((c) => c.id === trust.id),
    { type: 'trust_hub_certificate', ack_status: 'success' },
    "the admin sees the collector's acknowledgment",
  );
  t.match(await (await send(admin, session, 'GET', ADMIN_HUB_CERTIFICATE_PATH)).json(), { sha256: shaA, next_sha256: shaB });

  // Step 4: the hub switches to B. The appliance keeps uploading; the old pin goes at the first meeting with B.
  admin.deps.config.certificateSha256 = shaB;
  t.match(await upload(urlB, 'CC33CCC'), { kind: 'reply', status: 201 }, 'uploads through B after the switch');
  await pins.settled();
  t.same(pins.pins(), [shaB], 'the old pin dropped');
  t.match(await (await send(admin, session, 'GET', ADMIN_HUB_CERTIFICATE_PATH)).json(), { sha256: shaB, next_sha256: null });
  const fresh = createHubAgent({ trust: pins });
  t.teardown(() => fresh.close());
  t.match(
    await postToHubJson({ hubUrl: urlA, dispatcher: fresh }, { path: HEARTBEAT_PATH, apiKey: box.apiKey, json: {}, ...limits }),
    { kind: 'network', error: { code: HUB_CERTIFICATE_CHANGED } },
    'the old certificate is refused from then on',
  );
  const stored = await admin.database.sql<{ n: string }>('SELECT count(*) AS n FROM detections WHERE collector_id = $1', [box.collectorId]);
  t.equal(Number(stored[0]?.n), 2, 'both uploads stored, the refused one never sent');
});
