/**
 * `GET` and `PUT /api/v1/watchlist/{id}/recipients` over the real app (docs/watchlists.md
 * "Recipients"): who may read and set them, which chats and webhook targets each role may
 * name, and hostile or unknown input refused with a 400 naming the field. Delivery to the
 * recipients is in recipients-delivery.test.ts.
 */
import t from 'tap';
import { ADMIN_IP, adminTestContext, auditRows, send, type Session } from '../admin/admin.test-helper.ts';
import { WATCHLISTS_PATH, watchlistPartPath } from '../platform/http/paths.ts';
import { createTarget } from '../webhooks/targets.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const otherOperator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const admin = await ctx.session('admin');
const db = ctx.database;

async function create(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name, ...extra });
  if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

// Chats the bot knows: the operator's own, another operator's, an admin's group chat, and an unlinked one.
const link = (userId: string, chat: string, active = true) =>
  db.sql('INSERT INTO telegram_links (user_id, chat_id, is_active) VALUES ($1, $2::bigint, $3)', [userId, chat, active]);
await link(operator.user.user.id, '7001');
await link(otherOperator.user.user.id, '7002');
await link(admin.user.user.id, '-1007003');
await link(operator.user.user.id, '7004', false);
const { row: hook } = await createTarget(
  { db, clock: ctx.clock, config: ctx.deps.config },
  {
    name: 'Gate system',
    url: 'http://127.0.0.1:9/hook',
    events: ['health'],
    filter: {},
    enabled: true,
  },
);

const listId = await create('Recipients list');
const path = watchlistPartPath(listId, 'recipients');

t.test('an empty set at first; viewers and strangers are refused', async (t) => {
  const res = await send(ctx, operator, 'GET', path);
  t.equal(res.status, 200);
  t.same(await res.json(), { watchlist_id: listId, chats: [], webhooks: [], mqtt: false });
  t.equal((await send(ctx, viewer, 'GET', path)).status, 403, 'a viewer does not read recipients');
  t.equal((await send(ctx, viewer, 'PUT', path, { chats: [], webhooks: [], mqtt: false })).status, 403, 'nor sets them');
  t.equal((await send(ctx, null, 'GET', path)).status, 401);
  t.equal((await send(ctx, operator, 'GET', watchlistPartPath('00000000-0000-4000-8000-000000000000', 'recipients'))).status, 404);
  t.equal((await send(ctx, operator, 'GET', watchlistPartPath('not-a-uuid', 'recipients'))).status, 404);
});

t.test('an operator names their own chat and the MQTT topic; audited', async (t) => {
  const res = await send(ctx, operator, 'PUT', path, { chats: ['7001'], webhooks: [], mqtt: true });
  t.equal(res.status, 200, await res.clone().text());
  t.match(await res.json(), {
    watchlist_id: listId,
    chats: [{ chat_id: '7001', owner: { id: operator.user.user.id }, is_active: true, mine: true }],
    webhooks: [],
    mqtt: true,
  });
  t.match(await auditRows(ctx, 'watchlist.recipients_set', listId), [
    { actorUserId: operator.user.user.id, detail: { chats: ['7001'], webhooks: [], mqtt: true, before: { chats: [], mqtt: false } } },
  ]);
  const again = (await (await send(ctx, operator, 'GET', path)).json()) as { chats: unknown[]; mqtt: boolean };
  t.equal(again.chats.length, 1, 'kept');
  t.equal(again.mqtt, true);
});

t.test('an operator may not name or remove chats of other accounts, nor webhooks', async (t) => {
  const other = await send(ctx, operator, 'PUT', path, { chats: ['7001', '7002'], webhooks: [], mqtt: true });
  t.equal(other.status, 403);
  t.match(await other.json(), { error: { message: /7002 is linked to another account/ } });
  const hooks = await send(ctx, operator, 'PUT', path, { chats: ['7001'], webhooks: [hook.id], mqtt: true });
  t.equal(hooks.status, 403);
  t.match(await hooks.json(), { error: { message: /only an admin/ } });

  // The admin adds the group chat and the webhook target; the operator then keeps both untouched.
  const byAdmin = await send(ctx, admin, 'PUT', path, { chats: ['7001', '-1007003'], webhooks: [hook.id], mqtt: true });
  t.equal(byAdmin.status, 200, await byAdmin.clone().text());
  t.match(await byAdmin.json(), {
    chats: [
      { chat_id: '-1007003', mine: true },
      { chat_id: '7001', mine: false },
    ],
    webhooks: [{ id: hook.id, name: 'Gate system' }],
  });
  const removeGroup = await send(ctx, operator, 'PUT', path, { chats: ['7001'], webhooks: [hook.id], mqtt: true });
  t.equal(removeGroup.status, 403, 'the admin’s group chat stays unless an admin removes it');
  const dropOwn = await send(ctx, operator, 'PUT', path, { chats: ['-1007003'], webhooks: [hook.id], mqtt: false });
  t.equal(dropOwn.status, 200, 'their own chat and the MQTT topic are the operator’s to change');
  t.match(await dropOwn.json(), { chats: [{ chat_id: '-1007003' }], webhooks: [{ id: hook.id }], mqtt: false });
  t.equal(
    (await send(ctx, otherOperator, 'PUT', path, { chats: ['-1007003', '7002'], webhooks: [hook.id], mqtt: false })).status,
    200,
    'another operator adds their own',
  );
});

t.test('unknown and hostile input: 400 naming the field', async (t) => {
  const cases: Array<[unknown, RegExp, string]> = [
    [{ chats: ['7999'], webhooks: [], mqtt: false }, /chats: the bot knows no linked chat 7999/, 'a chat the bot does not know'],
    [{ chats: ['7004'], webhooks: [], mqtt: false }, /no linked chat 7004/, 'an unlinked chat'],
    [{ chats: ['70\u000001'], webhooks: [], mqtt: false }, /NUL|chats/, 'NUL'],
    [{ chats: ['\ud800'], webhooks: [], mqtt: false }, /surrogate|chats/, 'a lone surrogate'],
    [{ chats: ['1e5'], webhooks: [], mqtt: false }, /chats/, 'not an integer'],
    [{ chats: ['99999999999999999999'], webhooks: [], mqtt: false }, /chats/, 'beyond a chat id'],
    [{ chats: [1.5], webhooks: [], mqtt: false }, /chats/, 'a fraction'],
    [{ chats: Array.from({ length: 21 }, (_, i) => String(8000 + i)), webhooks: [], mqtt: false }, /at most 20 chats/, 'too many chats'],
    [{ chats: Array.from({ length: 100_000 }, () => '7001'), webhooks: [], mqtt: false }, /chats|large/, 'a huge array'],
    [{ chats: [], webhooks: ['00000000-0000-4000-8000-000000000000'], mqtt: false }, /webhooks: no webhook target/, 'an unknown target'],
    [{ chats: [], webhooks: ['not-a-uuid'], mqtt: false }, /webhooks/, 'not a uuid'],
    [{ chats: [], webhooks: [], mqtt: 'yes' }, /mqtt/, 'mqtt not a boolean'],
    [{ chats: [], webhooks: [] }, /mqtt/, 'a missing field'],
    [{ chats: [], webhooks: [], mqtt: false, topic: 'x' }, /topic|unrecognized/i, 'an unknown field'],
  ];
  for (const [body, message, why] of cases) {
    const res = await send(ctx, admin, 'PUT', path, body);
    t.ok(res.status === 400 || res.status === 413, `${why}: ${res.status}`);
    if (res.status === 400) t.match(JSON.stringify(await res.json()), message, why);
  }
  const current = (await (await send(ctx, admin, 'GET', path)).json()) as { chats: Array<{ chat_id: string }> };
  t.same(current.chats.map((c) => c.chat_id).sort(), ['-1007003', '7002'], 'nothing refused changed the set');
});

/** A CSV upload as the dashboard sends it: text/csv with the double-submit CSRF token. */
function upload(s: Session, id: string, csv: string) {
  const token = 'csv-csrf-token-0123456789abcdefghijklmnopqrst';
  return ctx.app.request(
    watchlistPartPath(id, 'import'),
    {
      method: 'POST',
      headers: { cookie: `${s.client.jar.header()}; csrf_token=${token}`, 'x-csrf-token': token, 'content-type': 'text/csv' },
      body: csv,
    },
    { incoming: { socket: { remoteAddress: ADMIN_IP } } },
  );
}
const recipientsOf = async (id: string) => (await (await send(ctx, admin, 'GET', watchlistPartPath(id, 'recipients'))).json()) as Record<string, unknown>;

t.test('CSV: an editor’s export carries the recipients, an import applies them and leaves out ids this hub does not know', async (t) => {
  await send(ctx, operator, 'POST', watchlistPartPath(listId, 'entries'), { plate: 'CSV0001' });
  const exported = await (await send(ctx, operator, 'GET', watchlistPartPath(listId, 'export'))).text();
  const [header, row] = exported.split('\r\n');
  t.equal(header, 'plate,notes,list_recipients');
  t.match(row, /^CSV0001,,"\{""chats"":\[""-1007003"",""7002""\],""webhooks"":\[""[0-9a-f-]{36}""\],""mqtt"":false\}"$/);
  const viewerExport = await (await send(ctx, viewer, 'GET', watchlistPartPath(listId, 'export'))).text();
  t.equal(viewerExport.split('\r\n')[0], 'plate,notes', 'a viewer, who may not read recipients, gets none in the file');

  // The admin imports the export into a fresh list: the same recipients.
  const copy = await create('Recipients copy');
  const res = await upload(admin, copy, exported);
  t.equal(res.status, 200, await res.clone().text());
  t.match(await res.json(), { added: 1, recipients_dropped: { chats: [], webhooks: [] } });
  t.match(await recipientsOf(copy), { chats: [{ chat_id: '-1007003' }, { chat_id: '7002' }], webhooks: [{ id: hook.id }], mqtt: false });
  t.match(await auditRows(ctx, 'watchlist.recipients_set', copy), [{ actorUserId: admin.user.user.id, detail: { chats: ['-1007003', '7002'] } }]);

  // A file from another hub: its chat and target are unknown here, its MQTT mark is not.
  const foreign = `plate,list_recipients\nCSV0002,"{""chats"":[""-1001"",""7001""],""webhooks"":[""11111111-2222-4333-8444-555555555555""],""mqtt"":true}"\n`;
  const other = await create('From another hub');
  const imported = await upload(operator, other, foreign);
  t.equal(imported.status, 200, await imported.clone().text());
  t.match(await imported.json(), { added: 1, recipients_dropped: { chats: ['-1001'], webhooks: ['11111111-2222-4333-8444-555555555555'] } });
  t.match(await recipientsOf(other), { chats: [{ chat_id: '7001' }], webhooks: [], mqtt: true }, 'the known chat and the mark are kept');

  // What a PUT would refuse, the import refuses whole: an operator naming a known target.
  const refused = await upload(operator, other, `plate,list_recipients\nCSV0003,"{""chats"":[],""webhooks"":[""${hook.id}""],""mqtt"":true}"\n`);
  t.equal(refused.status, 403);
  const bad = await upload(operator, other, 'plate,list_recipients\nCSV0003,{not json\n');
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { message: /list_recipients/ } });
  const notes = await (await send(ctx, operator, 'GET', `${watchlistPartPath(other, 'entries')}?limit=10`)).json();
  t.same(
    (notes as { data: Array<{ plate_number: string }> }).data.map((e) => e.plate_number),
    ['CSV0002'],
    'a refused import adds no plate',
  );

  const plain = await upload(operator, other, 'plate\nCSV0004\n');
  t.equal(plain.status, 200);
  t.match(await recipientsOf(other), { chats: [{ chat_id: '7001' }], mqtt: true }, 'a file without the column leaves the recipients alone');
});

t.test('an ignore list has no recipients; a removed link or target leaves every list', async (t) => {
  const ignore = await create('Staff', { kind: 'ignore' });
  const res = await send(ctx, admin, 'PUT', watchlistPartPath(ignore, 'recipients'), { chats: ['7001'], webhooks: [], mqtt: false });
  t.equal(res.status, 400);
  t.match(await res.json(), { error: { message: /ignore list/ } });

  await db.sql('DELETE FROM telegram_links WHERE chat_id = 7002');
  await db.sql('DELETE FROM webhook_targets WHERE id = $1::uuid', [hook.id]);
  t.match(await (await send(ctx, admin, 'GET', path)).json(), { chats: [{ chat_id: '-1007003' }], webhooks: [] });
});
