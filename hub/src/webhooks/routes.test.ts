/**
 * The webhook admin routes (docs/admin-api.md "Webhooks") over the real app: the secret once,
 * hostile bodies 4xx, other roles refused, and "send test event" reaching a real receiver
 * through the queue and the worker, with the outcome shown on the target.
 */
import t from 'tap';
import { adminTestContext, auditRows, send } from '../admin/admin.test-helper.ts';
import { createWebhookWorker } from './worker.ts';
import { startReceiver } from './webhooks.test-helper.ts';
import { ADMIN_WEBHOOKS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const operator = await ctx.session('operator');
const receiver = await startReceiver();
t.teardown(() => receiver.close());
type Target = { id: string; enabled: boolean; name: string; last_success_at: string | null };
type Answer = { secret: string; webhook: Target; data: Target[]; deliveries: Record<string, unknown>[]; message_id: string };
const json = async (res: Response) => (await res.json()) as Answer;
const BASE = ADMIN_WEBHOOKS_PATH;

t.test('create shows the secret once; list and read never do', async (t) => {
  const res = await send(ctx, admin, 'POST', BASE, { name: 'Gate', url: receiver.url, events: ['alert'], filter: { plate_pattern: 'AB*' } });
  t.equal(res.status, 201);
  const created = await json(res);
  t.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  receiver.secret = created.secret;
  const id = created.webhook.id;
  t.equal((await auditRows(ctx, 'admin.webhook.create', id)).length, 1, 'audited under the target');
  const listed = await json(await send(ctx, admin, 'GET', BASE));
  t.equal(listed.data.length, 1);
  t.notOk(JSON.stringify(listed).includes(created.secret), 'the list never carries the secret');
  t.match(listed.data[0], { id, url: receiver.url, events: ['alert'], filter: { plate_pattern: 'AB*' }, secret_prefix: 'whsec_', pending: 0, failed: 0 });

  const test = await send(ctx, admin, 'POST', `${BASE}/${id}/test`);
  t.equal(test.status, 202);
  const { message_id } = await json(test);
  const worker = createWebhookWorker({ db: ctx.deps.db, clock: ctx.clock, log: ctx.deps.log, config: ctx.deps.config });
  t.equal(await worker.runOnce(), 1);
  t.match(receiver.received.at(-1), { id: message_id, verified: true, body: { type: 'webhook.test' } });
  const read = await json(await send(ctx, admin, 'GET', `${BASE}/${id}`));
  t.ok(read.webhook.last_success_at, 'the last success shows on the target');
  t.match(read.deliveries[0], { message_id, status: 'sent', attempts: 1, event_type: 'webhook.test' });
  t.notOk(JSON.stringify(read).includes(created.secret));

  const rotated = await send(ctx, admin, 'POST', `${BASE}/${id}/rotate-secret`);
  t.equal(rotated.status, 200);
  const fresh = await json(rotated);
  t.not(fresh.secret, created.secret, 'a new secret, shown once');
  receiver.secret = fresh.secret;
  await send(ctx, admin, 'POST', `${BASE}/${id}/test`);
  t.equal(await worker.runOnce(), 1);
  t.ok(receiver.received.at(-1)?.verified, 'signed with the new secret from then on');

  const edited = await send(ctx, admin, 'PATCH', `${BASE}/${id}`, { enabled: false, name: 'Gate 2' });
  t.match(await json(edited), { webhook: { enabled: false, name: 'Gate 2' } });
  t.equal((await send(ctx, admin, 'DELETE', `${BASE}/${id}`, {})).status, 204);
  t.equal((await send(ctx, admin, 'GET', `${BASE}/${id}`)).status, 404);
});

t.test('hostile or wrong bodies are refused with 400 and store nothing', async (t) => {
  const good = { name: 'X', url: 'https://hooks.example.test/in', events: ['alert'] };
  const cases: [string, unknown][] = [
    ['plain http off this machine', { ...good, url: 'http://hooks.example.test/in' }],
    ['another scheme', { ...good, url: 'ftp://127.0.0.1/in' }],
    ['file scheme', { ...good, url: 'file:///etc/passwd' }],
    ['credentials in the URL', { ...good, url: 'https://user:pw@hooks.example.test/in' }],
    ['not a URL', { ...good, url: 'hooks' }],
    ['no events', { ...good, events: [] }],
    ['an unknown event', { ...good, events: ['everything'] }],
    ['a regular expression as plate pattern', { ...good, filter: { plate_pattern: '(a+)+$' } }],
    ['an unknown filter field', { ...good, filter: { sql: '1=1' } }],
    ['a control character in the name', { ...good, name: 'a\u0000b' }],
    ['an unknown field', { ...good, secret: 'whsec_mine' }],
  ];
  for (const [name, body] of cases) {
    const res = await send(ctx, admin, 'POST', BASE, body);
    t.equal(res.status, 400, name);
  }
  t.equal((await send(ctx, admin, 'PATCH', `${BASE}/00000000-0000-4000-8000-000000000000`, { enabled: true })).status, 404, 'unknown target');
  t.equal((await send(ctx, admin, 'POST', `${BASE}/not-a-uuid/test`)).status, 404, 'malformed id');
  const listed = await json(await send(ctx, admin, 'GET', BASE));
  t.equal(listed.data.length, 0, 'nothing stored');
});

t.test('operators and strangers are refused', async (t) => {
  t.equal((await send(ctx, operator, 'GET', BASE)).status, 403);
  t.equal((await send(ctx, operator, 'POST', BASE, { name: 'X', url: 'https://a.example.test/', events: ['alert'] })).status, 403);
  t.equal((await send(ctx, null, 'GET', BASE)).status, 401);
});
