import t from 'tap';
import { eq } from 'drizzle-orm';
import { generateApiKey } from '@alpr/shared/credentials/index';
import { apiKeys } from '../db/schema/api-keys.ts';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { authenticateCollector, LAST_USE_WRITE_INTERVAL_MS, lastUseIsStale, UNAUTHORIZED_MESSAGE } from './api-key-auth.ts';
import { HOUR_MS } from '../platform/clock.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { revokeKey } from './revoke-key.ts';
import { claimedCollector, collectorTestContext } from './collectors.test-helper.ts';

const ctx = await collectorTestContext(t);

async function refused(key: string | undefined): Promise<HubError> {
  try {
    await authenticateCollector(ctx, key, '198.51.100.7');
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('key was accepted');
}

t.test('a valid key authenticates and records last use', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const before = ctx.clock.now();
  ctx.clock.advance(5_000);
  const who = await authenticateCollector(ctx, apiKey, '198.51.100.7');
  t.equal(who.collectorId, collectorId);
  t.equal(who.keyPrefix, apiKey.slice(0, 10));
  const [row] = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.id, who.keyId));
  t.equal(row?.lastUsedIp, '198.51.100.7');
  t.equal(row?.lastUsedAt?.getTime(), before.getTime() + 5_000);
});

t.test('last use is written at most once a minute per key, at once on a new address', async (t) => {
  const { apiKey } = await claimedCollector(ctx);
  const lastUse = async () => {
    const [row] = await ctx.db.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.keyPrefix, apiKey.slice(0, 10)));
    return { at: row?.lastUsedAt?.getTime(), ip: row?.lastUsedIp };
  };
  const first = ctx.clock.now().getTime();
  await authenticateCollector(ctx, apiKey, '198.51.100.7');
  t.same(await lastUse(), { at: first, ip: '198.51.100.7' }, 'first use recorded at once');
  ctx.clock.advance(LAST_USE_WRITE_INTERVAL_MS - 1);
  await authenticateCollector(ctx, apiKey, '198.51.100.7');
  t.same(await lastUse(), { at: first, ip: '198.51.100.7' }, 'a use inside the minute writes nothing');
  ctx.clock.advance(1);
  await authenticateCollector(ctx, apiKey, '198.51.100.7');
  t.same(await lastUse(), { at: first + LAST_USE_WRITE_INTERVAL_MS, ip: '198.51.100.7' }, 'a minute later it moves');
  ctx.clock.advance(1_000);
  await authenticateCollector(ctx, apiKey, '203.0.113.9');
  t.same(await lastUse(), { at: first + LAST_USE_WRITE_INTERVAL_MS + 1_000, ip: '203.0.113.9' }, 'a new address is written at once');
});

t.test('lastUseIsStale: first use, address change, a minute either way', async (t) => {
  const at = new Date('2026-11-25T10:00:00Z');
  const later = (ms: number) => new Date(at.getTime() + ms);
  t.equal(lastUseIsStale(null, null, at, '192.0.2.1'), true, 'never used');
  t.equal(lastUseIsStale(at, '192.0.2.1', later(59_999), '192.0.2.1'), false);
  t.equal(lastUseIsStale(at, '192.0.2.1', later(60_000), '192.0.2.1'), true);
  t.equal(lastUseIsStale(at, '192.0.2.1', later(10), '192.0.2.2'), true, 'new address');
  t.equal(lastUseIsStale(at, null, later(10), null), false, 'unknown address both times');
  t.equal(lastUseIsStale(at, '192.0.2.1', later(-86_400_000), '192.0.2.1'), true, 'clock set back a day');
});

t.test('every failing check is the same 401', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const cases: [string, string | undefined][] = [
    ['missing', undefined],
    ['malformed', 'not-a-key'],
    ['wrong prefix', `prov_${apiKey.slice(5)}`],
    ['wrong length', `${apiKey}A`],
    ['unknown', generateApiKey()],
  ];
  for (const [name, key] of cases) {
    const err = await refused(key);
    t.equal(err.status, 401, name);
    t.equal(err.message, UNAUTHORIZED_MESSAGE, `${name}: same message`);
  }
  // The valid key still works: none of the above touched it.
  t.equal((await authenticateCollector(ctx, apiKey, null)).collectorId, collectorId);
});

t.test('inactive key (switched off without revocation) is refused', async (t) => {
  const { apiKey } = await claimedCollector(ctx);
  await ctx.db.db
    .update(apiKeys)
    .set({ isActive: false })
    .where(eq(apiKeys.keyPrefix, apiKey.slice(0, 10)));
  t.equal((await refused(apiKey)).status, 401);
});

t.test('revoked key is refused and the use is logged without the key', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  const who = await authenticateCollector(ctx, apiKey, null);
  await revokeKey(ctx, SYSTEM_ACTOR, { keyId: who.keyId, reason: 'laptop stolen' });
  t.equal((await refused(apiKey)).status, 401);
  const warning = ctx.logLines().find((l) => l['msg'] === 'revoked collector API key used' && l['collector_id'] === collectorId);
  t.ok(warning, 'warn line written');
  t.equal(warning?.['level'], 40, 'at warn level');
  t.equal(warning?.['key_prefix'], apiKey.slice(0, 10));
  t.equal(warning?.['ip'], '198.51.100.7');
  t.notOk(JSON.stringify(ctx.logLines()).includes(apiKey), 'the full key never appears in the log');
});

t.test('expired key is refused once expires_at has passed', async (t) => {
  const { apiKey } = await claimedCollector(ctx);
  const expiresAt = new Date(ctx.clock.now().getTime() + HOUR_MS);
  await ctx.db.db
    .update(apiKeys)
    .set({ expiresAt })
    .where(eq(apiKeys.keyPrefix, apiKey.slice(0, 10)));
  await authenticateCollector(ctx, apiKey, null);
  ctx.clock.advance(HOUR_MS);
  t.equal((await refused(apiKey)).status, 401, 'refused at exactly expires_at');
});

t.test('a suspended collector authenticates, marked suspended; a decommissioned one is refused', async (t) => {
  const { collectorId, apiKey } = await claimedCollector(ctx);
  await ctx.db.db.update(collectors).set({ status: 'disabled' }).where(eq(collectors.id, collectorId));
  // Heartbeats and acks go on while suspended; uploads are refused by refuseIfSuspended (docs/collectors.md).
  t.match(await authenticateCollector(ctx, apiKey, null), { collectorId, suspended: true });
  await ctx.db.db.update(collectors).set({ status: 'decommissioned' }).where(eq(collectors.id, collectorId));
  t.equal((await refused(apiKey)).status, 401);
});
