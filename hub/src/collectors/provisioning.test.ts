import t from 'tap';
import { eq } from 'drizzle-orm';
import { isWellFormedProvisioningToken } from '@alpr/shared/credentials/index';
import { collectors } from '../db/schema/collectors.ts';
import { provisioningTokens } from '../db/schema/provisioning-tokens.ts';
import { HubError } from '../platform/errors.ts';
import { authenticateCollector } from './api-key-auth.ts';
import { HOUR_MS } from '../platform/clock.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from './create-collector.ts';
import { decommission } from './decommission.ts';
import { listKeys } from './list-keys.ts';
import { issueProvisioningToken, provision } from './provisioning.ts';
import { claimedCollector, collectorTestContext, TEST_PUBLIC_URL } from './collectors.test-helper.ts';

const ctx = await collectorTestContext(t);

async function refusal(token: string): Promise<HubError> {
  try {
    await provision(ctx, { provisioning_token: token }, null);
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('provision succeeded');
}

t.test('a pending collector is provisioned by token: key once, token used', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Provisioned' });
  const issued = await issueProvisioningToken(ctx, SYSTEM_ACTOR, created.collectorId);
  t.ok(isWellFormedProvisioningToken(issued.token));
  t.equal(issued.expiresAt.getTime() - ctx.clock.now().getTime(), HOUR_MS);
  ctx.clock.advance(HOUR_MS - 1);
  const answer = await provision(ctx, { provisioning_token: ` ${issued.token}\n`, hardware_id: 'SN-PROV-1' }, '192.0.2.44');
  t.equal(answer.collector_id, created.collectorId);
  t.equal(answer.central_url, TEST_PUBLIC_URL);
  t.equal((await authenticateCollector(ctx, answer.api_key, null)).collectorId, created.collectorId);
  const [token] = await ctx.db.db.select().from(provisioningTokens).where(eq(provisioningTokens.id, issued.tokenId));
  t.equal(token?.usedAt?.getTime(), ctx.clock.now().getTime());
  t.not(token?.tokenHash, issued.token, 'only the hash is stored');
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, created.collectorId));
  t.equal(row?.status, 'active');
  t.equal(row?.claimCode, null, 'the claim code cannot be used any more');
  t.equal(row?.hardwareId, 'SN-PROV-1');

  const reused = await refusal(issued.token);
  t.equal(reused.status, 410);
  t.equal(reused.reason, 'provisioning_token_used');
});

t.test('an expired or unknown token is refused', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Too late' });
  const issued = await issueProvisioningToken(ctx, SYSTEM_ACTOR, created.collectorId);
  ctx.clock.advance(HOUR_MS);
  const expired = await refusal(issued.token);
  t.equal(expired.status, 410);
  t.equal(expired.reason, 'provisioning_token_expired');
  const unknown = await refusal(`prov_${'A'.repeat(43)}`);
  t.equal(unknown.status, 404);
  t.equal(unknown.reason, 'provisioning_token_unknown');
  t.equal((await refusal('garbage')).reason, 'provisioning_token_unknown');
});

t.test('re-provisioning an active collector issues a new key; the old one keeps 24 h grace', async (t) => {
  const { collectorId, apiKey, hardwareId } = await claimedCollector(ctx);
  ctx.clock.advance(1_000);
  const issued = await issueProvisioningToken(ctx, SYSTEM_ACTOR, collectorId);
  const answer = await provision(ctx, { provisioning_token: issued.token, hardware_id: hardwareId }, null);
  t.not(answer.api_key, apiKey);
  await authenticateCollector(ctx, apiKey, null);
  await authenticateCollector(ctx, answer.api_key, null);
  ctx.clock.advance(24 * HOUR_MS);
  await t.rejects(authenticateCollector(ctx, apiKey, null), { code: 'unauthorized' }, 'old key gone after the grace');
  await authenticateCollector(ctx, answer.api_key, null);
  const keys = await listKeys(ctx, collectorId);
  t.same(
    keys.map((k) => k.status),
    ['expired', 'active'],
  );

  const other = await provision(
    ctx,
    { provisioning_token: (await issueProvisioningToken(ctx, SYSTEM_ACTOR, collectorId)).token, hardware_id: 'SN-SOMETHING-ELSE' },
    null,
  ).catch((e: unknown) => e);
  t.equal(other instanceof HubError ? other.reason : undefined, 'hardware_mismatch');
});

t.test('a decommissioned collector gets no token and its outstanding tokens stop working', async (t) => {
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Gone' });
  const issued = await issueProvisioningToken(ctx, SYSTEM_ACTOR, created.collectorId);
  await decommission(ctx, SYSTEM_ACTOR, created.collectorId);
  t.equal((await refusal(issued.token)).reason, 'collector_not_claimable');
  await t.rejects(issueProvisioningToken(ctx, SYSTEM_ACTOR, created.collectorId), { code: 'conflict' });
  const missing = await issueProvisioningToken(ctx, SYSTEM_ACTOR, '11111111-1111-4111-8111-111111111111').catch((e: unknown) => e);
  t.equal(missing instanceof HubError ? missing.status : undefined, 404);
});
