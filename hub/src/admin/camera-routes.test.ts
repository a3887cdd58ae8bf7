import t from 'tap';
import nacl from 'tweetnacl';
import { eq } from 'drizzle-orm';
import { openSealedBox } from '@alpr/shared/protocol/sealed-box';
import { signedCommandSchema } from '@alpr/shared/protocol/collector';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { ackCommand } from '../collectors/ack-command.ts';
import { heartbeat } from '../collectors/heartbeat.ts';
import { cameras } from '../db/schema/cameras.ts';
import { adminTestContext, auditRows, send } from './admin.test-helper.ts';
import { adminCameraPath, adminCollectorPartPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps } = ctx;
const admin = await ctx.session('admin');
const operator = await ctx.session('operator');
const PASSWORD = 'Gate-Cam-Secret-91';

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const beat = { uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1 };

async function deviceCollector() {
  const keys = nacl.box.keyPair();
  const claimed = await claimedCollector(deps, { publicKey: Buffer.from(keys.publicKey).toString('base64') });
  return { ...claimed, keys };
}

/** The cameras of the config_update a heartbeat hands out now. */
async function pushedCameras(collectorId: string) {
  const answer = await heartbeat(deps, collectorId, beat);
  // The clock stands still in these tests: the newest is the highest config_version, not the last.
  const version = (c: { payload: Record<string, unknown> }) => Number(c.payload['config_version'] ?? 0);
  const last = answer.pending_commands
    .map((p) => signedCommandSchema.parse(p))
    .filter((c) => c.type === 'config_update')
    .sort((a, b) => version(a) - version(b))
    .at(-1);
  const config = (last?.payload as { config?: { cameras?: Record<string, unknown>[] } }).config;
  return { command: last, cameras: config?.cameras ?? [] };
}

const gate = { name: 'North gate', vendor: 'vendor_a', mode: 'pull', host: '10.0.0.20', username: 'admin', password: PASSWORD, timezone: 'Europe/London' };

t.test('an admin adds a camera: sealed to the device, never stored or shown in clear, pushed with a new version', async (t) => {
  const { collectorId, keys } = await deviceCollector();
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), gate);
  t.equal(res.status, 201);
  const body = await json(res);
  const camera = body.camera as Record<string, unknown>;
  t.match(camera, { name: 'North gate', vendor: 'vendor_a', port: 80, channel: 1, username: 'admin', has_credentials: true, enabled: true });
  t.notOk(JSON.stringify(body).includes(PASSWORD), 'the answer carries no password');
  t.equal(body.config_version, 2);

  const [row] = await ctx.database.db
    .select()
    .from(cameras)
    .where(eq(cameras.id, String(camera.id)));
  t.notOk(JSON.stringify(row).includes(PASSWORD) || Buffer.from(row?.escrowedCredentials ?? []).includes(PASSWORD), 'the row holds it sealed only');

  const pushed = await pushedCameras(collectorId);
  t.equal(pushed.command?.id, body.command_id);
  const entry = pushed.cameras.find((c) => c['id'] === camera.id);
  t.match(entry, { name: 'North gate', host: '10.0.0.20', username: 'admin', source: 'hub', timezone: 'Europe/London' });
  t.notOk(JSON.stringify(pushed.command).includes(PASSWORD), 'the command carries no password in clear');
  const opened = openSealedBox(String(entry?.['sealed_credentials']), keys.secretKey);
  t.ok(opened.ok, 'the device key opens it');
  if (opened.ok) t.match(JSON.parse(Buffer.from(opened.message).toString('utf8')), { username: 'admin', password: PASSWORD });
  t.equal((await auditRows(ctx, 'admin.camera.add', String(camera.id))).length, 1, 'audited under the camera');

  const list = await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'cameras')));
  t.equal((list.data as unknown[]).length, 1);
  t.notOk(JSON.stringify(list).includes(PASSWORD));
});

t.test('the form rules: what each vendor and mode needs, one name per collector, operators refused', async (t) => {
  const { collectorId } = await deviceCollector();
  const path = adminCollectorPartPath(collectorId, 'cameras');
  const noPassword = await send(ctx, admin, 'POST', path, { ...gate, password: undefined });
  t.equal(noPassword.status, 400);
  t.match(await json(noPassword), { error: { message: /password/ } });
  const consoleWithoutToken = await send(ctx, admin, 'POST', path, { name: 'Yard', vendor: 'vendor_b', mode: 'push', host: '10.0.0.9' });
  t.match(await json(consoleWithoutToken), { error: { message: /token/ } });
  t.equal((await send(ctx, admin, 'POST', path, { ...gate, timezone: 'Mars/Olympus' })).status, 400);
  t.equal((await send(ctx, admin, 'POST', path, { ...gate, host: 'bad host\u0000' })).status, 400);
  t.equal((await send(ctx, admin, 'POST', path, { ...gate, extra: 1 })).status, 400);
  t.equal(
    (await send(ctx, admin, 'POST', path, { name: 'Push cam', vendor: 'vendor_a', mode: 'push' })).status,
    201,
    'a push camera needs no host or password',
  );
  t.equal((await send(ctx, admin, 'POST', path, gate)).status, 201);
  t.equal((await send(ctx, admin, 'POST', path, { ...gate, name: 'north GATE' })).status, 409, 'names are unique per collector, ignoring case');
  t.equal((await send(ctx, operator, 'POST', path, gate)).status, 403);
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath('00000000-0000-4000-8000-000000000000', 'cameras'), gate)).status, 404);
});

t.test('edit, disable and remove; a changed username asks for the password again', async (t) => {
  const { collectorId } = await deviceCollector();
  const added = await json(await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), gate));
  const id = String((added.camera as { id: string }).id);
  const path = adminCameraPath(collectorId, id);

  const renamed = await send(ctx, admin, 'PATCH', path, { name: 'Main gate', channel: 2 });
  t.equal(renamed.status, 200);
  t.match(await json(renamed), { camera: { name: 'Main gate', channel: 2, has_credentials: true }, config_version: 3 });
  t.match(
    (await pushedCameras(collectorId)).cameras.find((c) => c['id'] === id),
    { name: 'Main gate', channel: 2, sealed_credentials: String },
    'credentials kept',
  );

  const userOnly = await send(ctx, admin, 'PATCH', path, { username: 'operator2' });
  t.equal(userOnly.status, 400);
  t.match(await json(userOnly), { error: { message: /enter the credentials again/ } });
  t.equal((await send(ctx, admin, 'PATCH', path, { username: 'operator2', password: 'new-Secret-22' })).status, 200);

  t.equal((await send(ctx, admin, 'PATCH', path, { enabled: false })).status, 200);
  t.notOk(
    (await pushedCameras(collectorId)).cameras.some((c) => c['id'] === id),
    'a disabled camera is not sent',
  );
  t.equal((await auditRows(ctx, 'admin.camera.edit', id)).length, 4);

  t.equal((await send(ctx, admin, 'DELETE', path)).status, 200);
  t.equal((await send(ctx, admin, 'PATCH', path, { name: 'x' })).status, 404, 'gone from the API');
  const list = await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'cameras')));
  t.same(list.data, []);
  const [row] = await ctx.database.db.select().from(cameras).where(eq(cameras.id, id));
  t.ok(row?.removedAt, 'the row stays for history');
  t.equal(row?.escrowedCredentials, null, 'its credentials do not');
});

t.test("the collector's answer per camera is kept on the camera and in the commands list", async (t) => {
  const { collectorId } = await deviceCollector();
  const added = await json(await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), gate));
  const id = String((added.camera as { id: string }).id);
  const commandId = String(added.command_id);
  await ackCommand(deps, { collectorId, keyId: '00000000-0000-4000-8000-000000000000', keyPrefix: 'alpr_test', suspended: false }, commandId, {
    status: 'rolled_back',
    detail: 'camera North gate: authentication failed',
    cameras: [{ id, outcome: 'authentication_failed', detail: 'HTTP 401 from the camera' }],
  });
  const list = await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'cameras')));
  t.match((list.data as unknown[])[0], { last_outcome: 'authentication_failed', last_outcome_detail: 'HTTP 401 from the camera', last_outcome_at: String });
  const commands = await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'commands')));
  t.match((commands.data as unknown[])[0], { id: commandId, ack_status: 'rolled_back', ack_cameras: [{ id, outcome: 'authentication_failed' }] });
});
