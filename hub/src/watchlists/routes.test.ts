import t from 'tap';
import { ADMIN_IP, adminTestContext, auditRows, send, type Session } from '../admin/admin.test-helper.ts';
import { SUBSCRIPTIONS_PATH, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const admin = await ctx.session('admin');
const B = WATCHLISTS_PATH;

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

async function create(s: Session, body: Record<string, unknown>): Promise<string> {
  const res = await send(ctx, s, 'POST', B, body);
  if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
  return (await json<{ id: string }>(res)).id;
}

/** A CSV upload as the dashboard sends it: text/csv with the double-submit CSRF token. */
function upload(s: Session, id: string, csv: string, headers: Record<string, string> = {}) {
  const token = 'csv-csrf-token-0123456789abcdefghijklmnopqrst';
  return ctx.app.request(
    `${B}/${id}/import`,
    {
      method: 'POST',
      headers: { cookie: `${s.client.jar.header()}; csrf_token=${token}`, 'x-csrf-token': token, 'content-type': 'text/csv', ...headers },
      body: csv,
    },
    { incoming: { socket: { remoteAddress: ADMIN_IP } } },
  );
}

t.test('create, read, update, list: operators write, viewers read, every change audited', async (t) => {
  t.equal((await send(ctx, viewer, 'POST', B, { name: 'Stolen' })).status, 403, 'a viewer cannot create');
  t.equal((await send(ctx, null, 'GET', B)).status, 401, 'no session');
  const res = await send(ctx, operator, 'POST', B, { name: 'Stolen vehicles', description: 'From the national feed', priority: 'high' });
  t.equal(res.status, 201);
  const created = await json(res);
  t.match(created, { name: 'Stolen vehicles', priority: 'high', is_active: true, ocr_tolerant: false, created_by: operator.user.user.id });
  const id = String(created.id);
  t.match(await auditRows(ctx, 'watchlist.create', id), [{ actorUserId: operator.user.user.id, ip: ADMIN_IP, detail: { name: 'Stolen vehicles' } }]);

  t.match(await json(await send(ctx, viewer, 'GET', `${B}/${id}`)), { id, entry_count: 0, subscribed: false }, 'a viewer reads');
  const patched = await send(ctx, admin, 'PATCH', `${B}/${id}`, { priority: 'critical', ocr_tolerant: true });
  t.equal(patched.status, 200);
  t.match(await json(patched), { priority: 'critical', ocr_tolerant: true, name: 'Stolen vehicles' });
  t.match(await auditRows(ctx, 'watchlist.update', id), [{ detail: { changed: ['priority', 'ocr_tolerant'] } }]);
  const list = await json<{ data: { id: string }[] }>(await send(ctx, viewer, 'GET', B));
  t.ok(list.data.some((w) => w.id === id));

  for (const [body, why] of [
    [{ priority: 'urgent' }, 'unknown priority'],
    [{}, 'nothing to change'],
    [{ name: '' }, 'empty name'],
    [{ name: 'x\u0000y' }, 'NUL'],
    [{ name: 'ok', extra: 1 }, 'unknown field'],
  ] as const) {
    const bad = await send(ctx, operator, 'PATCH', `${B}/${id}`, body);
    t.equal(bad.status, 400, why);
  }
  t.equal((await send(ctx, operator, 'GET', `${B}/00000000-0000-4000-8000-000000000000`)).status, 404);
  t.equal((await send(ctx, operator, 'GET', `${B}/not-a-uuid`)).status, 404);
});

t.test('entries: normalized on the way in, one per plate as OCR reads it, paged, removable', async (t) => {
  const id = await create(operator, { name: 'Entries' });
  const added = await send(ctx, operator, 'POST', `${B}/${id}/entries`, { plate: 'ab-12 cde', notes: 'blue van' });
  t.equal(added.status, 201);
  const entry = await json(added);
  t.match(entry, { plate_number: 'AB12CDE', plate_normalized: 'AB12C0E', notes: 'blue van', added_by: operator.user.user.id });
  const clash = await send(ctx, operator, 'POST', `${B}/${id}/entries`, { plate: 'AB12COE' });
  t.equal(clash.status, 409, 'O and D read the same: one entry');
  t.equal((await send(ctx, operator, 'POST', `${B}/${id}/entries`, { plate: '---' })).status, 400, 'nothing to match');
  t.equal((await send(ctx, operator, 'POST', `${B}/${id}/entries`, { plate: 'A'.repeat(21) })).status, 400, 'over 20 characters');
  t.equal((await send(ctx, viewer, 'POST', `${B}/${id}/entries`, { plate: 'XY1' })).status, 403);
  for (const plate of ['ZZ1', 'YY2', 'XX3']) await send(ctx, operator, 'POST', `${B}/${id}/entries`, { plate });
  const first = await json<{ data: { plate_number: string }[]; next_after: string | null }>(await send(ctx, viewer, 'GET', `${B}/${id}/entries?limit=2`));
  t.same(
    first.data.map((e) => e.plate_number),
    ['AB12CDE', 'XX3'],
  );
  const second = await json<{ data: { plate_number: string }[]; next_after: string | null }>(
    await send(ctx, viewer, 'GET', `${B}/${id}/entries?limit=2&after=${first.next_after}`),
  );
  t.same(
    second.data.map((e) => e.plate_number),
    ['YY2', 'ZZ1'],
  );
  t.equal(second.next_after, null);
  t.equal((await send(ctx, viewer, 'GET', `${B}/${id}/entries?limit=5000`)).status, 400, 'page size capped');

  const notes = await send(ctx, operator, 'PATCH', `${B}/${id}/entries/${String(entry.id)}`, { notes: null });
  t.match(await json(notes), { notes: null });
  t.equal((await send(ctx, operator, 'DELETE', `${B}/${id}/entries/${String(entry.id)}`)).status, 204);
  t.equal((await send(ctx, operator, 'DELETE', `${B}/${id}/entries/${String(entry.id)}`)).status, 404, 'gone');
  t.match(await auditRows(ctx, 'watchlist.entry_remove', id), [{ detail: { plate: 'AB12CDE' } }]);
});

t.test('CSV import: 10,000 rows in one request, per-line errors, plates already listed reported; export round-trips', async (t) => {
  const id = await create(admin, { name: 'Bulk' });
  await send(ctx, admin, 'POST', `${B}/${id}/entries`, { plate: 'KEEP1', notes: 'already here' });
  const rows = [
    'Plate,Notes',
    'keep1,would overwrite',
    '"AB 12,CD",quoted comma',
    'bad\u0000plate,x',
    '   ,empty',
    'AB12CD,duplicate of line 3',
    '"=HYPERLINK(""x"")",formula',
    'only-one-field',
  ];
  for (let i = 0; i < 9_990; i++) rows.push(`P${String(i).padStart(6, '0')},row ${i}`);
  const res = await upload(admin, id, rows.join('\r\n') + '\r\n');
  t.equal(res.status, 200);
  const report = await json<{ added: number; already_listed: number[]; errors: { line: number; error: string }[] }>(res);
  t.equal(report.added, 9_992, '9,990 generated rows, AB12CD and HYPERLINKX');
  t.same(report.already_listed, [2], 'KEEP1 was there: left alone');
  t.same(
    report.errors.map((e) => e.line),
    [4, 5, 6, 8],
  );
  t.match(report.errors, [{ error: /NUL/ }, { error: /no letters or digits/ }, { error: /same plate as line 3/ }, { error: /expected 2 fields/ }]);
  const exported = await send(ctx, viewer, 'GET', `${B}/${id}/export`);
  t.equal(exported.status, 200);
  t.match(exported.headers.get('content-type'), /^text\/csv/);
  t.match(exported.headers.get('content-disposition'), /attachment; filename=Bulk\.csv/);
  const text = await exported.text();
  const lines = text.trimEnd().split('\r\n');
  t.equal(lines[0], 'plate,notes');
  t.equal(lines.length, 1 + 9_993);
  t.ok(lines.includes('KEEP1,already here'), 'notes of an existing entry were not overwritten');
  t.ok(lines.includes('AB12CD,quoted comma'));

  const again = await json<{ added: number; already_listed: number[] }>(await upload(admin, id, text));
  t.equal(again.added, 0, 're-importing the export adds nothing');
  t.equal(again.already_listed.length, 9_993);

  const before = lines.length;
  for (const [csv, why, status] of [
    ['plate,colour\nAB1,red\n', 'unknown column', 400],
    ['', 'empty file', 400],
    ['plate\n"AB1\n', 'unterminated quote', 200],
  ] as const) {
    const bad = await upload(admin, id, csv);
    t.equal(bad.status, status, why);
  }
  t.equal((await upload(admin, id, `plate\n${'X1\n'.repeat(10_001)}`)).status, 400, 'over 10,000 rows: nothing added');
  t.equal((await upload(admin, id, 'plate\nAB1\n', { 'content-type': 'application/json' })).status, 415);
  t.equal((await upload(admin, id, 'plate\n' + 'A'.repeat(3 * 1024 * 1024))).status, 413);
  t.equal((await upload(admin, id, Buffer.from([0x70, 0x6c, 0x61, 0x74, 0x65, 0x0a, 0xff, 0xfe]) as unknown as string)).status, 400, 'not UTF-8');
  t.equal((await upload(viewer, id, 'plate\nAB1\n')).status, 403, 'viewers cannot import');
  const noToken = await ctx.app.request(`${B}/${id}/import`, {
    method: 'POST',
    headers: { cookie: admin.client.jar.header(), 'content-type': 'text/csv' },
    body: 'plate\nCSRF1\n',
  });
  t.equal(noToken.status, 403, 'a CSV post without the CSRF token is refused');
  const after = (await (await send(ctx, viewer, 'GET', `${B}/${id}/export`)).text()).trimEnd().split('\r\n');
  t.equal(after.length, before, 'no refused import added anything');
  t.match(await auditRows(ctx, 'watchlist.import', id), [{ detail: { added: 9_992 } }, { detail: { added: 0 } }, { detail: { added: 0 } }]);
});

t.test('subscriptions: any role, idempotent, listed as mine; delete is soft and ends them', async (t) => {
  const id = await create(operator, { name: 'Subscribed' });
  const first = await send(ctx, viewer, 'POST', `${B}/${id}/subscription`);
  t.equal(first.status, 201);
  t.equal((await send(ctx, viewer, 'POST', `${B}/${id}/subscription`)).status, 200, 'twice is one subscription');
  const mine = await json<{ data: { watchlist_id: string }[] }>(await send(ctx, viewer, 'GET', SUBSCRIPTIONS_PATH));
  t.ok(mine.data.some((s) => s.watchlist_id === id));
  t.match(await json(await send(ctx, viewer, 'GET', `${B}/${id}`)), { subscribed: true });
  t.equal((await send(ctx, viewer, 'DELETE', `${B}/${id}/subscription`)).status, 204);
  t.equal((await send(ctx, viewer, 'POST', `${B}/${id}/subscription`)).status, 201, 'and again');

  t.equal((await send(ctx, viewer, 'DELETE', `${B}/${id}`)).status, 403, 'viewers cannot delete');
  t.equal((await send(ctx, operator, 'DELETE', `${B}/${id}`)).status, 204);
  t.equal((await send(ctx, viewer, 'GET', `${B}/${id}`)).status, 404, 'gone for readers');
  const after = await json<{ data: { watchlist_id: string }[] }>(await send(ctx, viewer, 'GET', SUBSCRIPTIONS_PATH));
  t.notOk(
    after.data.some((s) => s.watchlist_id === id),
    'the subscription ended',
  );
  const [row] = await ctx.database.sql<{ deleted_at: Date | null }>('SELECT deleted_at FROM watchlists WHERE id = $1', [id]);
  t.ok(row?.deleted_at, 'the row stays (alerts keep their watchlist)');
  t.match(await auditRows(ctx, 'watchlist.delete', id), [{ detail: { name: 'Subscribed' } }]);
});

t.test('rate limits: 30 writes and 10 deletes a minute per user, with the spec headers', async (t) => {
  const s = await ctx.session('operator');
  const id = await create(s, { name: 'Limits' });
  let last: Response | undefined;
  for (let i = 0; i < 29; i++) last = await send(ctx, s, 'POST', `${B}/${id}/entries`, { plate: `RL${i}` });
  t.equal(last?.status, 201);
  t.equal(last?.headers.get('x-ratelimit-limit'), '30');
  t.equal(last?.headers.get('x-ratelimit-remaining'), '0');
  const limited = await send(ctx, s, 'PATCH', `${B}/${id}`, { name: 'Limits 2' });
  t.equal(limited.status, 429, 'PATCH shares the watchlist write limit');
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
  t.equal((await send(ctx, s, 'GET', `${B}/${id}`)).status, 200, 'reads are not limited');
  const other = await ctx.session('operator');
  t.equal((await send(ctx, other, 'POST', `${B}/${id}/entries`, { plate: 'OTHER1' })).status, 201, 'per user');

  ctx.clock.advance(61_000);
  const entries = await json<{ data: { id: string }[] }>(await send(ctx, s, 'GET', `${B}/${id}/entries?limit=20`));
  const codes: number[] = [];
  for (const e of entries.data.slice(0, 11)) codes.push((await send(ctx, s, 'DELETE', `${B}/${id}/entries/${e.id}`)).status);
  t.same(codes, [...Array(10).fill(204), 429]);
});
