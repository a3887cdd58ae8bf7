import t from 'tap';
import { adminTestContext, auditRows, send, type Session } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import type { AlertRecord } from './payload.ts';
import { createAlertWorker } from './worker.ts';
import { alertActionPath, ALERTS_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const subscriber = await ctx.session('viewer');
const bystander = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps, { config: { cameras: [{ id: 'gate-1', name: 'North gate' }] } });
const worker = createAlertWorker(ctx.deps, createWatchlistCache(ctx.deps));

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Uploads plates through the batch endpoint at the hub's (test) clock, with images. */
async function upload(plates: readonly string[]): Promise<{ full: Buffer; crop: Buffer }[]> {
  const images = plates.map(() => ({ full: jpegLike(3000), crop: jpegLike(800) }));
  await uploadBatch(
    ctx.app,
    collector.apiKey,
    plates.map((text, i) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.91 }, timestamp: new Date(ctx.clock.now().getTime() - 60_000 + i).toISOString() }),
      fullScene: images[i]?.full as Buffer,
      plateCrop: images[i]?.crop as Buffer,
    })),
  );
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
  return images;
}

type Listed = { data: AlertRecord[]; next_cursor: string | null };
const list = async (s: Session, query: string) => json<Listed>(await send(ctx, s, 'GET', `${ALERTS_PATH}?${query}`));

const watchlist = await json<{ id: string }>(await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Wanted', priority: 'high' }));
await send(ctx, operator, 'POST', watchlistPartPath(watchlist.id, 'entries'), { plate: 'WANT1D', notes: 'armed, do not approach' });
await send(ctx, subscriber, 'POST', watchlistPartPath(watchlist.id, 'subscription'));
const start = ctx.clock.now().toISOString();

t.test('a subscribed user gets the alert with the spec payload and signed image links; others get nothing', async (t) => {
  const [images] = await upload(['WANT1D', 'OTHER9']);
  const page = await list(subscriber, `since=${start}`);
  t.equal(page.data.length, 1);
  const alert = page.data[0] as AlertRecord;
  t.match(alert, {
    alert_id: /^\d+$/,
    detection_id: /^\d+$/,
    plate_number: 'WANT1D',
    watchlist: { id: watchlist.id, name: 'Wanted', priority: 'high' },
    entry: { notes: 'armed, do not approach', added_by: operator.user.user.id, added_at: /Z$/ },
    detection: {
      confidence: 0.91,
      collector_name: /^Site /,
      camera_name: 'North gate',
      image_urls: { full: /^https:\/\/hub\.example\.test\/api\/v1\/images\/[0-9a-f]{64}\?exp=\d+&sig=/, crop: /sig=/ },
    },
    match_kind: 'exact',
    state: 'new',
    handled_by: null,
  });
  t.same((await list(bystander, `since=${start}`)).data, [], 'not subscribed: nothing');

  const full = new URL(alert.detection.image_urls.full as string);
  const fetchImage = (path: string) => ctx.app.request(path);
  const ok = await fetchImage(full.pathname + full.search);
  t.equal(ok.status, 200, 'the link works without a session');
  t.equal(ok.headers.get('content-type'), 'image/jpeg');
  t.same(Buffer.from(await ok.arrayBuffer()), images?.full, 'the bytes uploaded');
  const altered = full.search.replace(/sig=./, (m) => `sig=${m.endsWith('A') ? 'B' : 'A'}`);
  t.equal((await fetchImage(full.pathname + altered)).status, 403, 'altered signature');
  const otherHash = full.pathname.replace(/[0-9a-f]{64}/, 'a'.repeat(64));
  t.equal((await fetchImage(otherHash + full.search)).status, 403, 'the signature is for that image only');
  const later = full.search.replace(/exp=(\d+)/, (_m, exp: string) => `exp=${Number(exp) + 3600}`);
  t.equal((await fetchImage(full.pathname + later)).status, 403, 'a stretched expiry');
  ctx.clock.advance(16 * 60_000);
  const expired = await fetchImage(full.pathname + full.search);
  t.equal(expired.status, 403, 'expired after 15 minutes');
  t.match(await expired.json(), { error: { message: /expired/ } });
});

t.test('catching up: since, pages, filters', async (t) => {
  await upload(['WANT1D', 'WANT1D', 'WANT1D']);
  const all = await list(subscriber, `since=${start}&limit=100`);
  t.equal(all.data.length, 4);
  const first = await list(subscriber, `since=${start}&limit=3`);
  t.equal(first.data.length, 3);
  t.ok(first.next_cursor);
  const second = await list(subscriber, `limit=3&cursor=${first.next_cursor}`);
  t.same(
    second.data.map((a) => a.alert_id),
    all.data.slice(3).map((a) => a.alert_id),
    'the next page continues where the first ended',
  );
  t.equal(second.next_cursor, null);
  const lastSeen = all.data[1]?.created_at as string;
  const caught = (await list(subscriber, `since=${encodeURIComponent(lastSeen)}`)).data;
  t.ok(
    caught.every((a) => a.created_at >= lastSeen),
    'at or after since',
  );
  t.same(
    caught.map((a) => a.alert_id),
    all.data.filter((a) => a.created_at >= lastSeen).map((a) => a.alert_id),
    'inclusive: alerts sharing the last seen time are not lost',
  );
  for (const query of ['since=yesterday', 'cursor=nonsense', 'limit=500', 'state=open', 'watchlist_id=x', 'extra=1']) {
    t.equal((await send(ctx, subscriber, 'GET', `${ALERTS_PATH}?${query}`)).status, 400, query);
  }
  t.equal((await send(ctx, null, 'GET', ALERTS_PATH)).status, 401);
});

t.test('acknowledge and dismiss: operators, once, audited; viewers read only', async (t) => {
  const [a, b] = (await list(subscriber, `since=${start}&limit=100`)).data;
  const id = String(a?.alert_id);
  t.equal((await send(ctx, subscriber, 'POST', alertActionPath(id, 'acknowledge'), {})).status, 403, 'a viewer cannot');
  const acked = await send(ctx, operator, 'POST', alertActionPath(id, 'acknowledge'), { note: 'unit 4 on the way' });
  t.equal(acked.status, 200);
  t.match(await json(acked), { state: 'acknowledged', handled_by: operator.user.user.id });
  t.equal((await send(ctx, operator, 'POST', alertActionPath(id, 'dismiss'), {})).status, 409, 'handled once');
  t.equal((await send(ctx, operator, 'POST', alertActionPath(String(b?.alert_id), 'dismiss'))).status, 200, 'no body is fine');
  t.equal((await send(ctx, operator, 'POST', alertActionPath('999999999', 'dismiss'), {})).status, 404);
  t.equal((await send(ctx, operator, 'POST', alertActionPath('abc', 'dismiss'), {})).status, 404);
  t.match(await auditRows(ctx, 'alert.acknowledge', id), [{ actorUserId: operator.user.user.id, detail: { note: 'unit 4 on the way' } }]);
  const open = await list(subscriber, `since=${start}&state=new&limit=100`);
  t.notOk(
    open.data.some((x) => x.alert_id === id || x.alert_id === b?.alert_id),
    'state=new shows what is unhandled',
  );
  t.match(
    (await list(subscriber, `since=${start}&limit=100`)).data.find((x) => x.alert_id === id),
    { state: 'acknowledged', handled_by: operator.user.user.id },
  );
});
