import t from 'tap';
import { eq } from 'drizzle-orm';
import { signedCommandSchema, type SignedCommand } from '@alpr/shared/protocol/collector';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { collectors } from '../db/schema/collectors.ts';
import { commands } from '../db/schema/commands.ts';
import { ackCommand } from './ack-command.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { heartbeat } from './heartbeat.ts';
import { updateConfig } from './update-config.ts';
import { wipeCollector } from './wipe.ts';
import { createCollector } from './create-collector.ts';
import { claimedCollector, collectorTestContext } from './collectors.test-helper.ts';

const ctx = await collectorTestContext(t);
/** An ack's caller: these tests are about commands, not about which key sent the ack. */
const as = (collectorId: string) => ({ collectorId, keyId: '00000000-0000-4000-8000-000000000000', keyPrefix: 'alpr_test', suspended: false });
const beat = { uptime_seconds: 120, queue_depth: 3, cameras_online: 2, config_version: 1 };

function commandsOf(pending: unknown[]): SignedCommand[] {
  return pending.map((p) => signedCommandSchema.parse(p));
}

t.test('config update: version +1, stored, and a signed config_update in the next heartbeat', async (t) => {
  const { collectorId, enrollment } = await claimedCollector(ctx);
  const empty = await heartbeat(ctx, collectorId, beat);
  t.same(empty.pending_commands, []);
  t.equal(empty.heartbeat_interval_seconds, 60, 'hub default');

  const updated = await updateConfig(ctx, SYSTEM_ACTOR, collectorId, { heartbeat_interval_seconds: 30, cameras: [{ id: 'cam-1' }] });
  t.equal(updated.configVersion, 2);
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, collectorId));
  t.equal(row?.configVersion, 2);
  t.same(row?.config, { heartbeat_interval_seconds: 30, cameras: [{ id: 'cam-1' }] });

  ctx.clock.advance(60_000);
  const answer = await heartbeat(ctx, collectorId, { ...beat, edge_version: '2.0.0' });
  t.equal(answer.heartbeat_interval_seconds, 30, 'the pushed interval');
  const [command] = commandsOf(answer.pending_commands);
  t.equal(command?.id, updated.commandId);
  t.equal(command?.type, 'config_update');
  t.equal(command?.collector_id, collectorId);
  t.same(command?.payload, { config: { heartbeat_interval_seconds: 30, cameras: [{ id: 'cam-1' }] }, config_version: 2 });
  t.ok(command && verifyCommandSignature(command, enrollment.hub_public_key), 'verifies with the hub key from the claim');
  t.notOk(
    command && verifyCommandSignature({ ...command, payload: { config: {}, config_version: 2 } }, enrollment.hub_public_key),
    'a changed payload does not verify',
  );

  const [stored] = await ctx.db.db
    .select()
    .from(commands)
    .where(eq(commands.id, updated.commandId ?? ''));
  t.equal(stored?.status, 'delivered');
  const [after] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, collectorId));
  t.equal(after?.lastHeartbeatAt?.getTime(), ctx.clock.now().getTime());
  t.match(after?.lastHeartbeat, beat);
  t.equal(after?.edgeVersion, '2.0.0');

  const again = commandsOf((await heartbeat(ctx, collectorId, beat)).pending_commands);
  t.same(again, commandsOf(answer.pending_commands), 'redelivered byte for byte until acknowledged');
});

t.test('ack: owner only, idempotent, then no longer delivered', async (t) => {
  const owner = await claimedCollector(ctx);
  const stranger = await claimedCollector(ctx);
  const { commandId } = await wipeCollector(ctx, SYSTEM_ACTOR, owner.collectorId);
  const [wipe] = commandsOf((await heartbeat(ctx, owner.collectorId, beat)).pending_commands);
  t.equal(wipe?.type, 'wipe');
  t.ok(wipe && verifyCommandSignature(wipe, owner.enrollment.hub_public_key));

  await t.rejects(ackCommand(ctx, as(stranger.collectorId), commandId, { status: 'success' }), { code: 'not_found' }, 'another collector cannot ack');
  await t.rejects(ackCommand(ctx, as(owner.collectorId), '11111111-1111-4111-8111-111111111111', { status: 'success' }), { code: 'not_found' });
  await t.rejects(ackCommand(ctx, as(owner.collectorId), 'not-a-uuid', { status: 'success' }), { code: 'not_found' });

  const first = await ackCommand(ctx, as(owner.collectorId), commandId, { status: 'failed', detail: 'disk busy' });
  t.same(first, { id: commandId, acknowledged: true, status: 'failed', acknowledged_at: ctx.clock.now().toISOString() });
  ctx.clock.advance(10_000);
  const second = await ackCommand(ctx, as(owner.collectorId), commandId, { status: 'success' });
  t.same(second, first, 'a repeated ack returns the first answer');
  const [row] = await ctx.db.db.select().from(commands).where(eq(commands.id, commandId));
  t.equal(row?.ackStatus, 'failed');
  t.equal(row?.ackDetail, 'disk busy');
  t.same((await heartbeat(ctx, owner.collectorId, beat)).pending_commands, [], 'acknowledged commands are not sent again');
});

t.test('commands come in creation order; a pending collector gets its config at claim, not as a command', async (t) => {
  const { collectorId } = await claimedCollector(ctx);
  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, { a: 1 });
  ctx.clock.advance(1);
  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, { a: 2 });
  const list = commandsOf((await heartbeat(ctx, collectorId, beat)).pending_commands);
  t.same(
    list.map((c) => c.payload['config_version']),
    [2, 3],
  );

  const pending = await createCollector(ctx, SYSTEM_ACTOR, { siteName: 'Not yet' });
  const result = await updateConfig(ctx, SYSTEM_ACTOR, pending.collectorId, { a: 9 });
  t.equal(result.configVersion, 2);
  t.equal(result.commandId, null);
  await t.rejects(wipeCollector(ctx, SYSTEM_ACTOR, pending.collectorId), { code: 'conflict' }, 'nothing to wipe before a claim');
});
