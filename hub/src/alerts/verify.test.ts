/**
 * Verifying alerts (docs/alerts.md "Verification") over the real HTTP routes and a real
 * WebSocket: what the operator compares (entry as listed, match, candidates the camera
 * sent), the verdict once and audited, the live `alert_verification` message, the
 * watchlist's "verification required" setting, the misread rates, and hostile bodies.
 * Runs on PostgreSQL with DATABASE_URL, on PGlite without.
 */
import t from 'tap';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { adminTestContext, auditRows, send, type Session } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { connect, type TestClient } from '../live/live.test-helper.ts';
import { createLiveBroker } from '../live/broker.ts';
import { attachLiveChannel } from '../live/upgrade.ts';
import { misreadRate, misreadRates } from '../reports/misreads.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import type { AlertRecord } from './payload.ts';
import { createAlertWorker } from './worker.ts';
import { alertActionPath, alertPath, ALERTS_PATH, watchlistPartPath, watchlistPath, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const db = ctx.database;
const broker = createLiveBroker(ctx.deps, { maxConnectionsPerUser: 5, pingIntervalMs: 60_000, statusPollMs: 3_600_000 });
await broker.start(db.listen.bind(db));
const server = serve({ fetch: ctx.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const channel = attachLiveChannel(server, ctx.deps, broker);
const open: TestClient[] = [];
t.teardown(async () => {
  for (const c of open) c.ws.close();
  await broker.stop();
  channel.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const WS = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;

const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps, {
  config: {
    cameras: [
      { id: 'gate-1', name: 'North gate' },
      { id: 'gate-2', name: 'South gate' },
    ],
  },
});
const worker = createAlertWorker(ctx.deps, createWatchlistCache(ctx.deps));

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

interface Read {
  text: string;
  camera?: string;
  candidates?: Array<{ text: string; confidence?: number }>;
}

async function upload(reads: readonly Read[]): Promise<void> {
  await uploadBatch(
    ctx.app,
    collector.apiKey,
    reads.map((r, i) => ({
      detection: sampleDetection({
        camera: { id: r.camera ?? 'gate-1', mac: '7cd8b328641b' },
        plate: { text: r.text, confidence: 0.81, ...(r.candidates ? { candidates: r.candidates } : {}) },
        timestamp: new Date(ctx.clock.now().getTime() - 60_000 + i).toISOString(),
      }),
      fullScene: jpegLike(3000),
      plateCrop: jpegLike(800),
    })),
  );
  while ((await worker.runOnce()) > 0) {
    /* drain: the worker's NOTIFY reaches the broker */
  }
}

const start = ctx.clock.now().toISOString();
const list = async (s: Session, query = '') =>
  (await json<{ data: AlertRecord[] }>(await send(ctx, s, 'GET', `${ALERTS_PATH}?since=${encodeURIComponent(start)}&limit=100${query}`))).data;
const verify = (s: Session | null, id: string, body: unknown) => send(ctx, s, 'POST', alertActionPath(id, 'verify'), body);

const checked = await json<{ id: string; verification_required: boolean }>(
  await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Stolen', priority: 'high', ocr_tolerant: true }),
);
const trusted = await json<{ id: string; verification_required: boolean }>(
  await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Staff car park', verification_required: false }),
);
await send(ctx, operator, 'POST', watchlistPartPath(checked.id, 'entries'), { plate: 'BZ60KX', notes: 'red hatchback' });
await send(ctx, operator, 'POST', watchlistPartPath(trusted.id, 'entries'), { plate: 'STAFF22' });
for (const s of [operator, viewer]) {
  await send(ctx, s, 'POST', watchlistPartPath(checked.id, 'subscription'));
  await send(ctx, s, 'POST', watchlistPartPath(trusted.id, 'subscription'));
}

t.test('verification required is on by default, off where the list says so, and can be changed', async (t) => {
  t.equal(checked.verification_required, true, 'default on');
  t.equal(trusted.verification_required, false);
  const changed = await send(ctx, operator, 'PATCH', watchlistPath(trusted.id), { verification_required: true });
  t.equal(changed.status, 200);
  t.equal((await json<{ verification_required: boolean }>(changed)).verification_required, true);
  await send(ctx, operator, 'PATCH', watchlistPath(trusted.id), { verification_required: false });
  t.equal((await send(ctx, operator, 'PATCH', watchlistPath(trusted.id), { verification_required: 'yes' })).status, 400);
});

t.test('an alert carries what the operator compares, labelled unverified until confirmed', async (t) => {
  const live = await connect(WS, { cookie: viewer.client.jar.header() });
  open.push(live);
  await live.next('connected');
  // 8Z60KX is BZ60KX with B read as 8: an OCR-tolerant match; the camera's runner-up read is the listed plate.
  await upload([
    { text: '8Z60KX', candidates: [{ text: '8Z60KX', confidence: 0.81 }, { text: 'BZ60KX', confidence: 0.77 }, { text: 'BZ6OKX' }] },
    { text: 'STAFF22', camera: 'gate-2' },
  ]);
  const pushed = await live.next('alert');
  t.same(
    Object.keys(pushed.payload).sort(),
    ['alert_id', 'detection', 'detection_id', 'entry', 'plate_number', 'watchlist'],
    'the live payload has exactly the fields of docs/live.md',
  );
  const one = await send(ctx, viewer, 'GET', alertPath(pushed.payload.alert_id));
  t.equal(one.status, 200, 'the live page fetches the record of an alert it was sent');
  const record = await json<AlertRecord>(one);
  t.match(record, {
    plate_number: '8Z60KX',
    entry: { plate_number: 'BZ60KX', notes: 'red hatchback', added_by: operator.user.user.id, added_by_email: operator.user.user.email, added_at: /Z$/ },
    match_kind: 'ocr',
    detection: { confidence: 0.81, candidates: [{ text: 'BZ60KX', confidence: 0.77 }, { text: 'BZ6OKX' }] },
    verification: { required: true, state: 'unverified', unverified: true, actionable: false, by: null, at: null },
  });
  t.equal(record.detection.candidates.length, 2, 'the read itself is not repeated among its candidates');
  const outsider = await ctx.session('viewer');
  t.equal((await send(ctx, outsider, 'GET', alertPath(record.alert_id))).status, 404, 'not subscribed: as if there were no such alert');
  t.equal((await send(ctx, viewer, 'GET', alertPath('999999999'))).status, 404);
  // api-path-literal: an escaped NUL in the id segment, which alertPath() would encode away
  t.equal((await send(ctx, viewer, 'GET', '/api/v1/alerts/12%00')).status, 404);
  const alerts = await list(viewer);
  const stolen = alerts.find((a) => a.plate_number === '8Z60KX');
  const staff = alerts.find((a) => a.plate_number === 'STAFF22');
  t.match(stolen, { verification: { state: 'unverified', unverified: true }, match_kind: 'ocr' });
  t.match(staff, { verification: { required: false, unverified: false, actionable: true }, detection: { candidates: [] } });
});

t.test('confirm and misread: once, by operators, with state, who and when in the API, the live channel and the audit log', async (t) => {
  const live = await connect(WS, { cookie: viewer.client.jar.header() });
  open.push(live);
  await live.next('connected');
  await upload([{ text: 'BZ60KX' }, { text: 'BZ60KX', camera: 'gate-2' }]);
  const [confirmMe, misreadMe] = (await list(viewer, '&verification=unverified')).filter((a) => a.plate_number === 'BZ60KX');
  const a = String(confirmMe?.alert_id);
  const b = String(misreadMe?.alert_id);

  t.equal((await verify(viewer, a, { verification: 'confirmed' })).status, 403, 'a viewer cannot');
  t.equal((await verify(null, a, { verification: 'confirmed' })).status, 401, 'no session');
  const confirmed = await verify(operator, a, { verification: 'confirmed', note: 'crop shows BZ60KX, red hatchback' });
  t.equal(confirmed.status, 200);
  t.match(await json(confirmed), { alert_id: a, verification: 'confirmed', verified_by: operator.user.user.id, verified_at: ctx.clock.now().toISOString() });
  t.equal((await verify(operator, a, { verification: 'misread', note: 'changed my mind' })).status, 409, 'a verdict is given once');
  t.equal((await verify(operator, b, { verification: 'misread' })).status, 400, 'a misread needs a note');
  t.equal((await verify(operator, b, { verification: 'misread', note: '   ' })).status, 400, 'a blank note is no note');
  t.equal((await verify(operator, b, { verification: 'misread', note: 'crop shows BZ60KY: a different car' })).status, 200);

  const message = await live.next('alert_verification');
  t.match(message.payload, {
    alert_id: a,
    verification: {
      state: 'confirmed',
      unverified: false,
      actionable: true,
      by: operator.user.user.id,
      by_email: operator.user.user.email,
      note: /red hatchback/,
    },
  });
  t.match((await live.next('alert_verification')).payload, { alert_id: b, verification: { state: 'misread', actionable: false, unverified: true } });

  const after = await list(viewer);
  t.match(
    after.find((x) => x.alert_id === a),
    { verification: { state: 'confirmed', by: operator.user.user.id, at: /Z$/ } },
  );
  t.match(
    after.find((x) => x.alert_id === b),
    { verification: { state: 'misread', note: 'crop shows BZ60KY: a different car' } },
  );
  t.notOk(
    (await list(viewer, '&verification=unverified')).some((x) => x.alert_id === a || x.alert_id === b),
    'verification=unverified lists what is left to check',
  );
  t.match(await auditRows(ctx, 'alert.confirm', a), [{ actorUserId: operator.user.user.id, detail: { verification: 'confirmed', note: /red hatchback/ } }]);
  t.match(await auditRows(ctx, 'alert.misread', b), [{ actorUserId: operator.user.user.id, detail: { verification: 'misread', note: /a different car/ } }]);
  t.equal((await verify(operator, '999999999', { verification: 'confirmed' })).status, 404);
  t.equal((await verify(operator, 'abc', { verification: 'confirmed' })).status, 404);
});

t.test('hostile bodies get a 4xx and change nothing', async (t) => {
  await upload([{ text: 'BZ60KX' }]);
  const target = (await list(viewer, '&verification=unverified')).find((a) => a.plate_number === 'BZ60KX');
  const id = String(target?.alert_id);
  const bodies: Array<[string, unknown]> = [
    ['no body', undefined],
    ['an unknown state', { verification: 'maybe' }],
    ['state as a number', { verification: 1 }],
    ['unverified is not a verdict', { verification: 'unverified' }],
    ['a NUL byte', { verification: 'confirmed', note: 'ok\u0000drop table' }],
    ['a lone surrogate', { verification: 'confirmed', note: 'ok \ud800' }],
    ['a huge note', { verification: 'confirmed', note: 'x'.repeat(100_000) }],
    ['an unknown field', { verification: 'confirmed', by: 'someone-else' }],
    ['an array', [{ verification: 'confirmed' }]],
  ];
  for (const [why, body] of bodies) {
    const res = await verify(operator, id, body);
    t.ok(res.status >= 400 && res.status < 500, `${why}: ${res.status}`);
  }
  const raw = await verify(operator, id, '{"verification": "confirmed", "note": ');
  t.ok(raw.status >= 400 && raw.status < 500, `broken JSON: ${raw.status}`);
  t.match(
    (await list(viewer)).find((a) => a.alert_id === id),
    { verification: { state: 'unverified' } },
    'still unverified',
  );
  for (const q of ['verification=maybe', 'verification=']) {
    t.equal((await send(ctx, viewer, 'GET', `${ALERTS_PATH}?${q}`)).status, 400, q);
  }
});

t.test('misread rates per camera and per list count the verdicts', async (t) => {
  const report = await misreadRates(ctx.deps.db, ctx.clock.now());
  const north = report.cameras.find((c) => c.label.endsWith('North gate'));
  const south = report.cameras.find((c) => c.label.endsWith('South gate'));
  t.match(north, { confirmed: 1, misread: 0 });
  t.match(south, { confirmed: 0, misread: 1 });
  t.equal(misreadRate(south ?? { alerts: 0, confirmed: 0, misread: 0 }), 1);
  t.equal(report.cameras[0]?.key, south?.key, 'the camera that misreads comes first');
  t.match(
    report.watchlists.find((w) => w.label === 'Stolen'),
    { alerts: 4, confirmed: 1, misread: 1 },
  );
  const page = await send(ctx, viewer, 'GET', '/reports');
  const html = await page.text();
  t.match(html, /Misread rates, last 30 days/);
  t.match(html, /South gate<\/td><td>2<\/td><td>0<\/td><td>1<\/td><td>100 %/);
});
