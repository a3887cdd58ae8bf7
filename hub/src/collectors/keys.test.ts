import t from 'tap';
import { eq } from 'drizzle-orm';
import { isWellFormedApiKey } from '@alpr/shared/credentials/index';
import { apiKeys } from '../db/schema/api-keys.ts';
import { collectors } from '../db/schema/collectors.ts';
import { authenticateCollector } from './api-key-auth.ts';
import { HOUR_MS } from '../platform/clock.ts';
import { SYSTEM_ACTOR, SYSTEM_ACTOR_ID } from '../platform/actor.ts';
import { decommission } from './decommission.ts';
import { heartbeat } from './heartbeat.ts';
import { listKeys } from './list-keys.ts';
import { revokeKey } from './revoke-key.ts';
import { rotateKey } from './rotate-key.ts';
import { collectorStatus, listCollectors } from './status.ts';
import { claimedCollector, collectorTestContext } from './collectors.test-helper.ts';
import { updateConfig } from './update-config.ts';

const ctx = await collectorTestContext(t);
const beat = { uptime_seconds: 1, queue_depth: 0, cameras_online: 1, config_version: 1 };

t.test('rotate: both keys valid during the grace period, only the new one after', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  ctx.clock.advance(1_000);
  const rotated = await rotateKey(ctx, SYSTEM_ACTOR, { collectorId, gracePeriodHours: 2 });
  t.ok(isWellFormedApiKey(rotated.new_key));
  t.equal(rotated.old_key_expires_at, new Date(ctx.clock.now().getTime() + 2 * HOUR_MS).toISOString());
  t.match(rotated.message, /shown only once/);
  const [stored] = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.id, rotated.new_key_id));
  t.equal(stored?.expiresAt, null, 'the new key does not expire');
  t.equal(stored?.createdBy, SYSTEM_ACTOR_ID);

  ctx.clock.advance(2 * HOUR_MS - 1);
  await authenticateCollector(ctx, apiKey, null);
  await authenticateCollector(ctx, rotated.new_key, null);
  ctx.clock.advance(1);
  await t.rejects(authenticateCollector(ctx, apiKey, null), { code: 'unauthorized' }, 'old key refused after the grace');
  t.equal((await authenticateCollector(ctx, rotated.new_key, null)).collectorId, collectorId);
  const keys = await listKeys(ctx, collectorId);
  t.same(
    keys.map((k) => [k.prefix, k.status]),
    [
      [apiKey.slice(0, 10), 'expired'],
      [rotated.new_key.slice(0, 10), 'active'],
    ],
  );
  // Its first use (1 ms earlier) is recorded; the next, within the minute, writes nothing.
  t.equal(keys[1]?.lastUsedAt?.getTime(), ctx.clock.now().getTime() - 1);
});

t.test('rotate: default grace is 24 h; a second rotation never extends an earlier expiry', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const first = await rotateKey(ctx, SYSTEM_ACTOR, { collectorId });
  t.equal(Date.parse(first.old_key_expires_at) - ctx.clock.now().getTime(), 24 * HOUR_MS);
  ctx.clock.advance(HOUR_MS);
  await rotateKey(ctx, SYSTEM_ACTOR, { collectorId, gracePeriodHours: 48 });
  ctx.clock.advance(23 * HOUR_MS);
  await t.rejects(authenticateCollector(ctx, apiKey, null), { code: 'unauthorized' }, 'original key expired on its first schedule');
  await authenticateCollector(ctx, first.new_key, null);
});

t.test('revoke: immediate, records who/why, twice is a conflict', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const [key] = await listKeys(ctx, collectorId);
  const revoked = await revokeKey(ctx, SYSTEM_ACTOR, { keyId: key?.id ?? '', reason: 'leaked in a ticket' });
  t.equal(revoked.collectorId, collectorId);
  await t.rejects(authenticateCollector(ctx, apiKey, null), { code: 'unauthorized' });
  const [row] = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.id, revoked.keyId));
  t.equal(row?.isActive, false);
  t.equal(row?.revokeReason, 'leaked in a ticket');
  t.equal(row?.revokedBy, SYSTEM_ACTOR_ID);
  t.equal(row?.revokedAt?.getTime(), ctx.clock.now().getTime());
  t.equal((await listKeys(ctx, collectorId))[0]?.status, 'revoked');
  await t.rejects(revokeKey(ctx, SYSTEM_ACTOR, { keyId: revoked.keyId, reason: 'again' }), { code: 'conflict' });
  await t.rejects(revokeKey(ctx, SYSTEM_ACTOR, { keyId: '11111111-1111-4111-8111-111111111111', reason: 'x' }), { code: 'not_found' });
});

t.test('decommission: every key revoked, history kept, no more rotation or config', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const rotated = await rotateKey(ctx, SYSTEM_ACTOR, { collectorId });
  const result = await decommission(ctx, SYSTEM_ACTOR, collectorId);
  t.equal(result.revokedKeys, 2);
  await t.rejects(authenticateCollector(ctx, apiKey, null), { code: 'unauthorized' });
  await t.rejects(authenticateCollector(ctx, rotated.new_key, null), { code: 'unauthorized' });
  t.same(
    (await listKeys(ctx, collectorId)).map((k) => k.status),
    ['revoked', 'revoked'],
  );
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, collectorId));
  t.equal(row?.status, 'decommissioned');
  t.ok(row?.hardwareId, 'hardware binding kept as history');
  await t.rejects(decommission(ctx, SYSTEM_ACTOR, collectorId), { code: 'conflict' });
  await t.rejects(rotateKey(ctx, SYSTEM_ACTOR, { collectorId }), { code: 'conflict' });
  await t.rejects(updateConfig(ctx, SYSTEM_ACTOR, collectorId, {}), { code: 'conflict' });
});

t.test('status: online until 3 heartbeat intervals pass without one', async (t) => {
  const { collectorId } = await claimedCollector(ctx);
  t.equal((await collectorStatus(ctx, collectorId)).connectivity, 'offline', 'never seen');
  await heartbeat(ctx, collectorId, beat);
  t.equal((await collectorStatus(ctx, collectorId)).connectivity, 'online');
  ctx.clock.advance(180_000);
  t.equal((await collectorStatus(ctx, collectorId)).connectivity, 'online', 'exactly 3 x 60 s');
  ctx.clock.advance(1);
  const late = await collectorStatus(ctx, collectorId);
  t.equal(late.connectivity, 'offline');
  t.equal(late.lastHeartbeat?.['queue_depth'], 0);

  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, { heartbeat_interval_seconds: 10 });
  await heartbeat(ctx, collectorId, beat);
  ctx.clock.advance(31_000);
  t.equal((await collectorStatus(ctx, collectorId)).connectivity, 'offline', 'a pushed 10 s interval: offline after 30 s');
  const all = await listCollectors(ctx);
  t.ok(all.some((c) => c.id === collectorId && c.heartbeatIntervalSeconds === 10));
  await t.rejects(collectorStatus(ctx, 'nope'), { code: 'not_found' });
});
