import t from 'tap';
import { eq } from 'drizzle-orm';
import { isWellFormedApiKey } from '@alpr/shared/credentials/index';
import { enrollmentResponseSchema } from '@alpr/shared/protocol/collector';
import { auditLog } from '../db/schema/audit-log.ts';
import { collectors } from '../db/schema/collectors.ts';
import { authenticateCollector } from './api-key-auth.ts';
import { claim } from './claim.ts';
import { HubError } from '../platform/errors.ts';
import { HOUR_MS } from '../platform/clock.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from './create-collector.ts';
import { collectorTestContext, TEST_PUBLIC_URL } from './collectors.test-helper.ts';

const ctx = await collectorTestContext(t);

async function claimRefusal(code: string, hardwareId: string): Promise<HubError> {
  try {
    await claim(ctx, { claim_code: code, hardware_id: hardwareId }, '203.0.113.5');
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('claim succeeded');
}

t.test('create: pending collector with a 48 h claim code and no key yet', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'North gate', siteAddress: '1 Main St', latitude: 51.5, longitude: -0.12 });
  t.match(created.claimCode, /^ALPR-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  t.equal(created.claimCodeExpiresAt.getTime() - ctx.clock.now().getTime(), 48 * HOUR_MS);
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.status, 'pending');
  t.equal(row?.siteName, 'North gate');
  t.equal(Number(row?.gpsLatitude), 51.5);
  t.equal(row?.configVersion, 1);
  const audit = await ctx.db.db.select().from(auditLog).where(eq(auditLog.targetId, created.collectorId));
  t.ok(
    audit.some((a) => a.action === 'collector.created'),
    'audit row written',
  );
});

t.test('claim: key once, config, hub key; code cleared; claim recorded', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Depot', config: { heartbeat_interval_seconds: 30 } });
  ctx.clock.advance(HOUR_MS);
  // Typed by a person: lower case, no hyphens.
  const typed = created.claimCode.toLowerCase().replace(/-/g, ' ');
  const answer = await claim(
    ctx,
    { claim_code: typed, hardware_id: 'SN-CLAIM-1', edge_version: '1.2.3', public_key: Buffer.alloc(32, 7).toString('base64') },
    '203.0.113.5',
  );
  t.ok(enrollmentResponseSchema.safeParse(answer).success, 'wire schema');
  t.equal(answer.collector_id, created.collectorId);
  t.ok(isWellFormedApiKey(answer.api_key));
  t.equal(answer.central_url, TEST_PUBLIC_URL);
  t.same(answer.config, { heartbeat_interval_seconds: 30 });
  t.equal(answer.config_version, 1);
  t.equal(Buffer.from(answer.hub_public_key, 'base64').length, 32);
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.status, 'active');
  t.equal(row?.claimCode, null, 'claim code cleared');
  t.equal(row?.hardwareId, 'SN-CLAIM-1');
  t.equal(row?.claimedFromIp, '203.0.113.5');
  t.equal(row?.claimedAt?.getTime(), ctx.clock.now().getTime());
  t.equal(row?.edgeVersion, '1.2.3');
  t.equal(row?.publicKey?.length, 32);
  t.equal((await authenticateCollector(ctx, answer.api_key, null)).collectorId, created.collectorId, 'the key works');
});

t.test('claim refusals: unknown, used, expired, hardware already registered', async (t) => {
  const unknown = await claimRefusal('ALPR-AAAA-BBBB', 'SN-X');
  t.equal(unknown.status, 404);
  t.equal(unknown.reason, 'claim_code_unknown');
  t.equal((await claimRefusal('not a code at all', 'SN-X')).reason, 'claim_code_unknown');

  const first = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Once' });
  await claim(ctx, { claim_code: first.claimCode, hardware_id: 'SN-ONCE' }, null);
  const reused = await claimRefusal(first.claimCode, 'SN-OTHER');
  t.equal(reused.status, 410);
  t.equal(reused.reason, 'claim_code_used');

  const late = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Late' });
  ctx.clock.advance(48 * HOUR_MS - 1);
  const inTime = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'In time' });
  ctx.clock.advance(1);
  const expired = await claimRefusal(late.claimCode, 'SN-LATE');
  t.equal(expired.status, 410);
  t.equal(expired.reason, 'claim_code_expired');
  const [lateRow] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, late.collectorId));
  t.equal(lateRow?.status, 'pending', 'an expired claim changes nothing');

  const taken = await claimRefusal(inTime.claimCode, 'SN-ONCE');
  t.equal(taken.status, 409);
  t.equal(taken.reason, 'hardware_already_registered');
  const [inTimeRow] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, inTime.collectorId));
  t.equal(inTimeRow?.claimCode, inTime.claimCode, 'a refused claim keeps the code usable');
  const ok = await claim(ctx, { claim_code: inTime.claimCode, hardware_id: 'SN-FRESH' }, null);
  t.equal(ok.collector_id, inTime.collectorId);
});

t.test('concurrent claims of one code: exactly one wins', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Race' });
  const results = await Promise.allSettled([
    claim(ctx, { claim_code: created.claimCode, hardware_id: 'SN-RACE-A' }, null),
    claim(ctx, { claim_code: created.claimCode, hardware_id: 'SN-RACE-B' }, null),
  ]);
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const failed = results.find((r) => r.status === 'rejected');
  t.equal(failed?.status === 'rejected' && failed.reason instanceof HubError ? failed.reason.reason : undefined, 'claim_code_used');
});

t.test('a malformed public key is a 400 and the code stays usable', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Bad key' });
  await t.rejects(claim(ctx, { claim_code: created.claimCode, hardware_id: 'SN-BADKEY', public_key: 'abc' }, null), { code: 'bad_request' });
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.status, 'pending');
});
