/**
 * Issue 10 section 2, hub side: a rotation reaches the collector sealed in a signed
 * `rotate_key` command; the collector's ack on the new key deactivates the old one; an admin
 * can deactivate early only after the new key was used. Real app, real database.
 */
import t from 'tap';
import { eq } from '../../hub/src/db/database.test-helper.ts';
import { rotateKeyPayloadSchema, signedCommandSchema } from '@alpr/shared/protocol/collector';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { generateDeviceKeyPair, openSealed } from '../../appliance/src/vault/sealed.ts';
import { authenticateCollector } from '../../hub/src/collectors/api-key-auth.ts';
import { claimedCollector } from '../../hub/src/collectors/collectors.test-helper.ts';
import { auditLog } from '../../hub/src/db/schema/audit-log.ts';
import { commands } from '../../hub/src/db/schema/commands.ts';
import { auditRows, reverify, send } from '../../hub/src/admin/admin.test-helper.ts';
import { adminTestContext } from '../../hub/src/admin/admin.test-helper.ts';
import { adminCollectorPartPath, adminKeyActionPath, collectorRotateKeyPath } from '../../hub/src/platform/http/paths.ts';
import { commandAckPath, HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';

const ctx = await adminTestContext(t);
const { deps } = ctx;
const admin = await ctx.session('admin');
const beatBody = { uptime_seconds: 5, queue_depth: 0, cameras_online: 1, config_version: 1 };

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const asCollector = (apiKey: string, method: string, path: string, body: unknown) =>
  ctx.app.request(
    path,
    { method, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) },
    { incoming: { socket: { remoteAddress: '192.0.2.44' } } },
  );
const keysOf = async (collectorId: string) =>
  (await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'keys')))).data as Record<string, unknown>[];

t.beforeEach(() => reverify(ctx, admin));

t.test('rotate: the new key travels sealed to the device in a signed rotate_key command, never in clear', async (t) => {
  const device = generateDeviceKeyPair();
  const c = await claimedCollector(deps, { publicKey: device.publicKey });
  const res = await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), { grace_period_hours: 24 });
  t.equal(res.status, 200);
  const rotated = await json(res);
  t.equal(rotated.delivery, 'command');
  t.match(rotated.message, /sent to the collector/);
  const newKey = String(rotated.new_key);

  const beat = await asCollector(c.apiKey, 'POST', HEARTBEAT_PATH, beatBody);
  t.equal(beat.status, 200);
  const [command] = ((await json(beat)).pending_commands as unknown[]).map((p) => signedCommandSchema.parse(p));
  t.equal(command?.id, rotated.command_id);
  t.equal(command?.type, 'rotate_key');
  t.ok(command && verifyCommandSignature(command, c.enrollment.hub_public_key), 'signed by the hub key of the claim');
  const payload = rotateKeyPayloadSchema.parse(command?.payload);
  t.equal(payload.key_id, rotated.new_key_id);
  t.equal(payload.key_prefix, rotated.new_key_prefix);
  t.equal(Buffer.from(openSealed(payload.sealed_api_key, device.secretKey)).toString('utf8'), newKey, 'only the device key opens it');
  t.throws(() => openSealed(payload.sealed_api_key, generateDeviceKeyPair().secretKey), 'another device cannot open it');
  t.notOk(JSON.stringify(command).includes(newKey), 'not in clear in the command');

  const stored = await deps.db.db.select().from(commands).where(eq(commands.collectorId, c.collectorId));
  t.notOk(JSON.stringify(stored).includes(newKey), 'not in clear in the command table');
  const audits = await deps.db.db.select().from(auditLog);
  t.notOk(JSON.stringify(audits).includes(newKey), 'not in clear in the audit log');
});

t.test('ack on the new key after a heartbeat with it deactivates the old key early; uploads keep working on the new one', async (t) => {
  const device = generateDeviceKeyPair();
  const c = await claimedCollector(deps, { publicKey: device.publicKey });
  const rotated = await json(await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), {}));
  const newKey = String(rotated.new_key);
  const commandId = String(rotated.command_id);

  // An ack sent with the old key proves nothing: both keys stay valid.
  const early = await asCollector(c.apiKey, 'POST', commandAckPath(commandId), { status: 'failed', detail: 'sealed key does not open' });
  t.equal(early.status, 200);
  t.ok(await authenticateCollector(deps, c.apiKey, null), 'old key still valid after a failed ack');

  const d2 = generateDeviceKeyPair();
  const c2 = await claimedCollector(deps, { publicKey: d2.publicKey });
  const r2 = await json(await send(ctx, admin, 'POST', collectorRotateKeyPath(c2.collectorId), {}));
  const oldAck = await asCollector(c2.apiKey, 'POST', commandAckPath(String(r2.command_id)), { status: 'success' });
  t.equal(oldAck.status, 200);
  t.ok(await authenticateCollector(deps, c2.apiKey, null), 'a success ack sent with the old key does not switch the old key off');

  // The real sequence: heartbeat on the new key, then the ack on it.
  t.equal((await asCollector(newKey, 'POST', HEARTBEAT_PATH, beatBody)).status, 200);
  const listed = await keysOf(c.collectorId);
  t.match(
    listed.find((k) => k.id === rotated.new_key_id),
    { status: 'active', last_used_ip: '192.0.2.44', last_used_at: ctx.clock.now().toISOString() },
    'the admin sees the new key in use',
  );
  // That command is settled (`failed`): a repeated ack keeps the first answer. The admin
  // rotates again; this time the collector heartbeats and acks on the newest key.
  const r3 = await json(await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), {}));
  const newest = String(r3.new_key);
  t.equal((await asCollector(newest, 'POST', HEARTBEAT_PATH, beatBody)).status, 200);
  const ack = await asCollector(newest, 'POST', commandAckPath(String(r3.command_id)), { status: 'success' });
  t.equal(ack.status, 200);
  const oldBeat = await asCollector(c.apiKey, 'POST', HEARTBEAT_PATH, beatBody);
  t.equal(oldBeat.status, 401, 'the original key is off before its grace period ended');
  t.equal((await asCollector(newKey, 'POST', HEARTBEAT_PATH, beatBody)).status, 401, 'so is the intermediate key');
  t.equal((await asCollector(newest, 'POST', HEARTBEAT_PATH, beatBody)).status, 200, 'the new key works');
  const after = await keysOf(c.collectorId);
  t.same(after.map((k) => k.status).sort(), ['active', 'inactive', 'inactive']);
  const rows = await auditRows(ctx, 'collector.key_deactivated', String(after.find((k) => k.prefix === c.apiKey.slice(0, 10))?.id));
  t.match(rows[0], { actorCollectorId: c.collectorId, detail: { rule: 'rotation_acknowledged', command_id: r3.command_id } });
});

t.test('admin deactivates the old key: refused until the new key was used, then immediate', async (t) => {
  const c = await claimedCollector(deps);
  const rotated = await json(await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), {}));
  t.equal(rotated.delivery, 'manual');
  const oldKey = (await keysOf(c.collectorId)).find((k) => k.prefix === c.apiKey.slice(0, 10));
  const path = adminKeyActionPath(String(oldKey?.id), 'deactivate');

  const tooEarly = await send(ctx, admin, 'POST', path);
  t.equal(tooEarly.status, 409);
  t.match(await json(tooEarly), { error: { message: /not used a newer key/ } });
  t.ok(await authenticateCollector(deps, c.apiKey, null), 'old key untouched by the refusal');

  t.equal((await asCollector(String(rotated.new_key), 'POST', HEARTBEAT_PATH, beatBody)).status, 200);
  const res = await send(ctx, admin, 'POST', path);
  t.equal(res.status, 200);
  t.match(await json(res), { key_prefix: c.apiKey.slice(0, 10), status: 'inactive', proven_by: { key_id: rotated.new_key_id } });
  t.equal((await asCollector(c.apiKey, 'POST', HEARTBEAT_PATH, beatBody)).status, 401);
  t.match(
    (await keysOf(c.collectorId)).find((k) => k.id === oldKey?.id),
    { status: 'inactive', revoked_at: null },
  );
  t.equal((await send(ctx, admin, 'POST', path)).status, 409, 'twice is a conflict');
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath('nonsense', 'deactivate'))).status, 404);

  const operator = await ctx.session('operator');
  t.equal((await send(ctx, operator, 'POST', path)).status, 403, 'admins only');
  const audit = await auditRows(ctx, 'admin.key.deactivate', String(oldKey?.id));
  t.same(
    audit.map((r) => r.detail['outcome']),
    ['failed', 'succeeded', 'failed'],
  );
});
