import t from 'tap';
import nacl from 'tweetnacl';
import { eq } from 'drizzle-orm';
import { openSealedBox } from '@alpr/shared/protocol/sealed-box';
import { signedCommandSchema } from '@alpr/shared/protocol/collector';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { heartbeat } from '../collectors/heartbeat.ts';
import { openEscrow } from '../collectors/cameras/credential-escrow.ts';
import { cameras } from '../db/schema/cameras.ts';
import { adminTestContext, send } from './admin.test-helper.ts';
import { adminCameraPath, adminCollectorPartPath } from '../platform/http/paths.ts';

/**
 * Ordinary cameras (vendor `snapshot`) managed on the hub (docs/cameras-central.md): the
 * fields and their bounds, a login typed into a URL moved to the escrow, what the collector is
 * sent. camera-routes.test.ts has the rules every kind shares.
 */
const ctx = await adminTestContext(t);
const { deps } = ctx;
// The hub allows one user 30 admin POSTs a minute: each test signs in its own admin.
let admin = await ctx.session('admin');
const CAMERA_PASSWORD = 'Street-Cam-Secret-52';

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const beat = { uptime_seconds: 1, queue_depth: 0, cameras_online: 0, config_version: 1 };

async function deviceCollector() {
  const keys = nacl.box.keyPair();
  const claimed = await claimedCollector(deps, { publicKey: Buffer.from(keys.publicKey).toString('base64') });
  return { ...claimed, keys };
}

/** The camera entries of the newest config_update a heartbeat hands out now. */
async function pushedCameras(collectorId: string): Promise<Record<string, unknown>[]> {
  const answer = await heartbeat(deps, collectorId, beat);
  const version = (c: { payload: Record<string, unknown> }) => Number(c.payload['config_version'] ?? 0);
  const last = answer.pending_commands
    .map((p) => signedCommandSchema.parse(p))
    .filter((c) => c.type === 'config_update')
    .sort((a, b) => version(a) - version(b))
    .at(-1);
  return (last?.payload as { config?: { cameras?: Record<string, unknown>[] } } | undefined)?.config?.cameras ?? [];
}

const street = {
  name: 'Street north',
  vendor: 'snapshot',
  mode: 'pull',
  snapshot_url: 'http://192.0.2.64/cgi-bin/snapshot.cgi',
  username: 'admin',
  password: CAMERA_PASSWORD,
  frames_per_second: 2.5,
  region: 'us',
  change_threshold: 6,
  passage_gap_ms: 1500,
};

t.test('an ordinary camera is added with its settings and pushed in the appliance’s own names', async (t) => {
  const { collectorId, keys } = await deviceCollector();
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), street);
  t.equal(res.status, 201);
  const camera = (await json(res)).camera as Record<string, unknown>;
  t.match(camera, {
    vendor: 'snapshot',
    mode: 'pull',
    host: null,
    snapshot_url: street.snapshot_url,
    rtsp_url: null,
    frames_per_second: 2.5,
    region: 'us',
    change_threshold: 6,
    passage_gap_ms: 1500,
    has_credentials: true,
  });
  const entry = (await pushedCameras(collectorId)).find((c) => c['id'] === camera.id);
  t.match(entry, {
    vendor: 'snapshot',
    mode: 'pull',
    snapshotUrl: street.snapshot_url,
    framesPerSecond: 2.5,
    region: 'us',
    changeThreshold: 6,
    passageGapMs: 1500,
    username: 'admin',
    source: 'hub',
  });
  t.notOk(entry && 'host' in entry, 'no host: the URL has it');
  t.notOk(entry && 'rtspUrl' in entry, 'an unset setting is not sent');
  const opened = openSealedBox(String(entry?.['sealed_credentials']), keys.secretKey);
  t.ok(opened.ok && JSON.parse(Buffer.from(opened.message).toString('utf8')).password === CAMERA_PASSWORD, 'the password sealed to the device');

  const bare = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), {
    name: 'Back gate',
    vendor: 'snapshot',
    mode: 'pull',
    host: 'cam.local',
  });
  t.equal(bare.status, 201, 'an address alone is enough (the usual snapshot paths), no login');
  const bareId = ((await json(bare)).camera as { id: string }).id;
  const bareEntry = (await pushedCameras(collectorId)).find((c) => c['id'] === bareId);
  t.match(bareEntry, { host: 'cam.local', port: 80 });
  t.notOk(bareEntry && ('sealed_credentials' in bareEntry || 'framesPerSecond' in bareEntry), 'no login, and the device’s defaults');

  t.equal((await pushedCameras(collectorId)).length, 2, 'both pushed');
});

t.test('a login typed into a URL goes to the escrow, never into the stored or pushed URL', async (t) => {
  admin = await ctx.session('admin');
  const { collectorId } = await deviceCollector();
  const body = {
    name: 'Stream',
    vendor: 'snapshot',
    mode: 'pull',
    rtsp_url: `rtsp://viewer:${encodeURIComponent('p@ss:w/rd')}@192.0.2.65:554/Streaming/Channels/101`,
  };
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), body);
  t.equal(res.status, 201);
  const answer = await json(res);
  const camera = answer.camera as Record<string, unknown>;
  t.match(camera, { rtsp_url: 'rtsp://192.0.2.65:554/Streaming/Channels/101', username: 'viewer', has_credentials: true });
  t.notMatch(JSON.stringify(answer), /p@ss|p%40ss/, 'the answer carries no password');
  const [row] = await ctx.database.db
    .select()
    .from(cameras)
    .where(eq(cameras.id, String(camera.id)));
  t.notMatch(JSON.stringify(row?.snapshotSettings), /p@ss|p%40ss|viewer/, 'the stored URL has no login');
  t.same(
    row?.escrowedCredentials ? openEscrow(deps.config, row.escrowedCredentials) : undefined,
    { username: 'viewer', password: 'p@ss:w/rd' },
    'escrowed, decoded',
  );
  const entry = (await pushedCameras(collectorId)).find((c) => c['id'] === camera.id);
  t.match(entry, { rtspUrl: 'rtsp://192.0.2.65:554/Streaming/Channels/101', username: 'viewer', sealed_credentials: String });

  const both = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), { ...body, name: 'Both', username: 'other', password: 'x' });
  t.equal(both.status, 400);
  t.match(await json(both), { error: { message: /in the URL or as username and password, not both/ } });
  const half = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), {
    ...body,
    name: 'Half',
    rtsp_url: 'rtsp://viewer@192.0.2.65/s',
  });
  t.match(await json(half), { error: { message: /needs both user and password/ } });
  const broken = await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), {
    ...body,
    name: 'Broken',
    rtsp_url: 'rtsp://a:%E0%A4%A@192.0.2.65/s',
  });
  t.equal(broken.status, 400, 'a login that does not decode');
  t.notMatch(JSON.stringify(await json(broken)), /%E0/, 'and the message does not echo it');

  // An edit to another stream of the same camera keeps the login; another camera needs it again.
  const path = adminCameraPath(collectorId, String(camera.id));
  t.equal((await send(ctx, admin, 'PATCH', path, { rtsp_url: 'rtsp://192.0.2.65:554/Streaming/Channels/102' })).status, 200);
  const moved = await send(ctx, admin, 'PATCH', path, { rtsp_url: 'rtsp://192.0.2.99:554/Streaming/Channels/101' });
  t.equal(moved.status, 400);
  t.match(await json(moved), { error: { message: /enter the credentials again/ } });
  const movedWithLogin = await send(ctx, admin, 'PATCH', path, { rtsp_url: 'rtsp://viewer2:New-pw-1@192.0.2.99:554/s' });
  t.equal(movedWithLogin.status, 200, 'a login in the new URL is the new login');
  t.match(await json(movedWithLogin), { camera: { username: 'viewer2', rtsp_url: 'rtsp://192.0.2.99:554/s' } });

  // Switching to snapshots: the RTSP URL is cleared with null.
  const switched = await send(ctx, admin, 'PATCH', path, { rtsp_url: null, snapshot_url: 'http://192.0.2.99/snap.jpg' });
  t.equal(switched.status, 200);
  t.match(await json(switched), { camera: { rtsp_url: null, snapshot_url: 'http://192.0.2.99/snap.jpg', has_credentials: true } });
});

t.test('username null removes a camera login: nothing escrowed, nothing pushed; a kind that needs one refuses', async (t) => {
  admin = await ctx.session('admin');
  const { collectorId } = await deviceCollector();
  const added = await json(await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), { ...street, name: 'Open snapshot' }));
  const camera = added.camera as Record<string, unknown>;
  t.match(camera, { username: 'admin', has_credentials: true });
  const path = adminCameraPath(collectorId, String(camera.id));

  const both = await send(ctx, admin, 'PATCH', path, { username: null, password: 'x' });
  t.equal(both.status, 400, 'a removal that also gives a password');
  t.match(await json(both), { error: { message: /username: null removes the login/ } });

  const removed = await send(ctx, admin, 'PATCH', path, { username: null });
  t.equal(removed.status, 200);
  t.match(await json(removed), { camera: { username: null, has_credentials: false, snapshot_url: street.snapshot_url } });
  const [row] = await ctx.database.db
    .select()
    .from(cameras)
    .where(eq(cameras.id, String(camera.id)));
  t.equal(row?.escrowedCredentials, null, 'the escrowed login is gone');
  t.equal(row?.username, null);
  const entry = (await pushedCameras(collectorId)).find((c) => c['id'] === camera.id);
  t.ok(entry, 'the camera is still pushed');
  t.equal(entry?.['username'], undefined, 'without a username');
  t.equal(entry?.['sealed_credentials'], undefined, 'and without sealed credentials');
  // A login can be given again later, like on an add.
  const again = await send(ctx, admin, 'PATCH', path, { username: 'viewer', password: 'Back-again-1' });
  t.equal(again.status, 200);
  t.match(await json(again), { camera: { username: 'viewer', has_credentials: true } });

  const isapi = await json(
    await send(ctx, admin, 'POST', adminCollectorPartPath(collectorId, 'cameras'), {
      name: 'Gate ISAPI',
      vendor: 'vendor_a',
      mode: 'pull',
      host: '192.0.2.70',
      username: 'admin',
      password: CAMERA_PASSWORD,
    }),
  );
  const needs = await send(ctx, admin, 'PATCH', adminCameraPath(collectorId, String((isapi.camera as Record<string, unknown>).id)), { username: null });
  t.equal(needs.status, 400, 'a polled ISAPI camera needs its login');
  t.match(await json(needs), { error: { message: /needs its username and password/ } });
});

t.test('hostile and impossible input gets a 400 that names the field', async (t) => {
  const { collectorId } = await deviceCollector();
  const path = adminCollectorPartPath(collectorId, 'cameras');
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['both URLs', { rtsp_url: 'rtsp://192.0.2.64/s' }, /rtsp_url: give snapshot_url or rtsp_url, not both/],
    ['no address and no URL', { snapshot_url: undefined, username: undefined, password: undefined }, /host: an ordinary camera needs/],
    ['a path without an address', { snapshot_url: '/snap.jpg' }, /host/],
    ['push', { mode: 'push' }, /mode: an ordinary camera is pull/],
    ['a token', { token: 'abc' }, /token/],
    ['a username without a password', { password: undefined }, /password/],
    ['a file URL', { snapshot_url: 'file:///etc/passwd' }, /snapshot_url/],
    ['a javascript URL', { snapshot_url: 'javascript:alert(1)' }, /snapshot_url/],
    ['an http URL as RTSP', { snapshot_url: undefined, rtsp_url: 'http://192.0.2.64/s' }, /rtsp_url/],
    ['a URL without a host', { snapshot_url: 'http:///snap.jpg' }, /snapshot_url/],
    ['a space in the URL', { snapshot_url: 'http://192.0.2.64/a b.jpg' }, /snapshot_url/],
    ['a control character in the URL', { snapshot_url: 'http://192.0.2.64/a\u0007.jpg' }, /snapshot_url/],
    ['a password in the query', { snapshot_url: 'http://192.0.2.64/snapshot.cgi?user=admin&pwd=x' }, /query/],
    ['a URL of 2001 characters', { snapshot_url: `http://192.0.2.64/${'a'.repeat(1983)}` }, /snapshot_url/],
    ['20 frames a second', { frames_per_second: 20 }, /frames_per_second/],
    ['0 frames a second', { frames_per_second: 0 }, /frames_per_second/],
    ['1e308 frames a second', { frames_per_second: 1e308 }, /frames_per_second/],
    ['frames a second as text', { frames_per_second: '4' }, /frames_per_second/],
    ['an unknown region', { region: 'zz' }, /region/],
    ['a region in capitals', { region: 'US' }, /region/],
    ['a threshold of 256', { change_threshold: 256 }, /change_threshold/],
    ['a negative threshold', { change_threshold: -1 }, /change_threshold/],
    ['a gap of 100 ms', { passage_gap_ms: 100 }, /passage_gap_ms/],
    ['a gap of 1.5 ms', { passage_gap_ms: 1500.5 }, /passage_gap_ms/],
    ['a gap of 10^20 ms', { passage_gap_ms: 1e20 }, /passage_gap_ms/],
    ['settings on an ISAPI camera', { vendor: 'vendor_a', host: '192.0.2.64' }, /snapshot_url: for an ordinary camera/],
  ];
  for (const [i, [why, over, message]] of cases.entries()) {
    if (i % 20 === 0) admin = await ctx.session('admin');
    const res = await send(ctx, admin, 'POST', path, { ...street, name: why, ...over });
    t.equal(res.status, 400, why);
    t.match(await json(res), { error: { code: 'bad_request', message } }, why);
  }
  // Refused at the body edge, before any field rule: a NUL and a lone surrogate in a URL.
  admin = await ctx.session('admin');
  for (const [why, raw] of [
    ['a NUL', '{"name":"Nul","vendor":"snapshot","mode":"pull","snapshot_url":"http://192.0.2.64/a\\u0000.jpg"}'],
    ['a lone surrogate', '{"name":"Sur","vendor":"snapshot","mode":"pull","rtsp_url":"rtsp://192.0.2.64/\\ud800"}'],
  ] as const) {
    const res = await send(ctx, admin, 'POST', path, raw);
    t.equal(res.status, 400, why);
    t.match(await json(res), { error: { message: String } }, `${why}: said`);
  }
  t.same((await json(await send(ctx, admin, 'GET', path))).data, [], 'nothing was added');
  t.same(await pushedCameras(collectorId), [], 'nor sent');
});
