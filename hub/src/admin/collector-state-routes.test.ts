import t from 'tap';
import nacl from 'tweetnacl';
import { eq } from 'drizzle-orm';
import { BATCH_PATH, CLAIM_PATH, HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { collectors } from '../db/schema/collectors.ts';
import { encodeBatch, sampleDetection } from '../ingest/uploads.test-helper.ts';
import { adminTestContext, auditRows, reverify, send } from './admin.test-helper.ts';
import { adminCollectorPartPath, adminCollectorPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps } = ctx;
// The upload statuses are this file's subject (201 taken, 403 refused), so load is pinned: on
// a busy machine a real 202 (stored, with backpressure) would stand in for the 201.
deps.load.override({ cpuPercent: 0, dbWriteLatencyMs: 0, imageStoreLatencyMs: 0 });
const admin = await ctx.session('admin');
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const beat = { uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1 };

const asCollector = (apiKey: string, method: string, path: string, body: BodyInit, contentType: string) =>
  ctx.app.request(
    path,
    { method, headers: { 'x-api-key': apiKey, 'content-type': contentType }, body },
    { incoming: { socket: { remoteAddress: '192.0.2.10' } } },
  );

async function upload(apiKey: string, plates: string[]) {
  const batch = encodeBatch(
    plates.map((text) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(ctx.clock.now().getTime() - 60_000).toISOString() }),
    })),
  );
  return asCollector(apiKey, 'POST', BATCH_PATH, new Uint8Array(batch.body), batch.contentType);
}
const heartbeatOf = (apiKey: string) => asCollector(apiKey, 'POST', HEARTBEAT_PATH, JSON.stringify(beat), 'application/json');
const storedCount = async (collectorId: string) =>
  Number((await deps.db.sql<{ n: string }>('SELECT count(*) AS n FROM detections WHERE collector_id = $1', [collectorId]))[0]?.n);

t.test('suspend: uploads refused with 403 collector_suspended and Retry-After, nothing stored; heartbeats answered; resume drains', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(deps);
  t.equal((await upload(apiKey, ['AA11AAA'])).status, 201);

  const suspended = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'suspend'), { reason: 'council review' });
  t.equal(suspended.status, 200);
  t.match(await json(suspended), { status: 'disabled', suspended_at: String });
  t.match(await json(await send(ctx, admin, 'GET', adminCollectorPath(collectorId))), { status: 'disabled', suspend_reason: 'council review' });
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'suspend'), {})).status, 409, 'already suspended');

  const refused = await upload(apiKey, ['BB22BBB']);
  t.equal(refused.status, 403);
  t.equal(refused.headers.get('retry-after'), '60');
  t.match(await json(refused), { error: { code: 'forbidden', reason: 'collector_suspended' } });
  t.equal(await storedCount(collectorId), 1, 'nothing stored while suspended');

  const hb = await heartbeatOf(apiKey);
  t.equal(hb.status, 200, 'heartbeats still answered');
  t.match(await json(hb), { collector_status: 'disabled' });

  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'resume'))).status, 200);
  t.equal((await upload(apiKey, ['BB22BBB'])).status, 201);
  t.equal(await storedCount(collectorId), 2);
  t.match(await json(await heartbeatOf(apiKey)), { collector_status: 'active' });
  t.equal((await auditRows(ctx, 'admin.collector.suspend', collectorId)).length, 2, 'the refused second suspend is audited too');
  t.equal((await auditRows(ctx, 'collector.resumed', collectorId)).length, 1);
});

t.test('replace: a new box claimed into the same collector; the old key is refused by name and nothing it sends is stored', async (t) => {
  const oldBox = await claimedCollector(deps);
  t.equal((await upload(oldBox.apiKey, ['CC33CCC'])).status, 201);

  ctx.clock.advance(6 * 60_000);
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(oldBox.collectorId, 'replace'))).status, 403, 'a key operation needs a fresh second factor');
  await reverify(ctx, admin);
  const marked = await send(ctx, admin, 'POST', adminCollectorPartPath(oldBox.collectorId, 'replace'));
  t.equal(marked.status, 201);
  const { claim_code: code } = (await json(marked)) as { claim_code: string };
  t.match(code, /^ALPR-/);
  t.equal((await upload(oldBox.apiKey, ['DD44DDD'])).status, 201, 'marking alone does not cut the old box off');

  const newKeys = nacl.box.keyPair();
  const claim = await ctx.app.request(
    CLAIM_PATH,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_code: code, hardware_id: 'NEW-BOX-0001', public_key: Buffer.from(newKeys.publicKey).toString('base64') }),
    },
    { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
  );
  t.equal(claim.status, 200);
  const enrollment = (await json(claim)) as { collector_id: string; api_key: string };
  t.equal(enrollment.collector_id, oldBox.collectorId, 'the same collector id');
  const [row] = await ctx.database.db.select().from(collectors).where(eq(collectors.id, oldBox.collectorId));
  t.match(row, { hardwareId: 'NEW-BOX-0001', status: 'active', pendingReplacement: false, claimCode: null });

  const late = await upload(oldBox.apiKey, ['EE55EEE']);
  t.equal(late.status, 401);
  t.match(await json(late), { error: { reason: 'collector_replaced', message: /replaced by another device/ } });
  t.equal((await heartbeatOf(oldBox.apiKey)).status, 401);
  t.equal((await upload(enrollment.api_key, ['FF66FFF'])).status, 201);
  t.equal(await storedCount(oldBox.collectorId), 3, 'old box: 2 before the switch; new box: 1; the late one not stored');
  t.equal((await auditRows(ctx, 'collector.replaced', oldBox.collectorId)).length, 1);
});

t.test('replace is refused for a pending collector and can be cancelled', async (t) => {
  const { collectorId } = await claimedCollector(deps);
  await reverify(ctx, admin);
  const marked = (await json(await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'replace')))) as { claim_code: string };
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'replace/cancel'))).status, 200);
  const claim = await ctx.app.request(CLAIM_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ claim_code: marked.claim_code, hardware_id: 'OTHER-BOX' }),
  });
  t.equal(claim.status, 404, 'the cancelled code no longer works');
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'replace/cancel'))).status, 409);
});
