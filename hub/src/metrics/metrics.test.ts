import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { parseExposition, valueOf, type Exposition } from '@alpr/shared/metrics/exposition.test-helper';
import { send } from '../admin/admin.test-helper.ts';
import { adminTestContext } from '../admin/admin.test-helper.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { encodeBatch, jpegLike, sampleDetection, startTestHub, type BatchEntry, type TestHub } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';
import { SEARCH_PATH } from '../platform/http/paths.ts';

const TOKEN = 'metrics-token-'.padEnd(40, 'x');

async function hubFor(t: Test, config: Parameters<typeof startTestHub>[0]['config'] = {}): Promise<TestHub> {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db, config });
  t.teardown(() => hub.close());
  // Latencies pinned (a loaded test machine must not turn 201s into 202s by accident).
  hub.deps.load.override({ dbWriteLatencyMs: 0, imageStoreLatencyMs: 0 });
  return hub;
}

async function scrape(hub: TestHub, headers: Record<string, string> = {}): Promise<Exposition> {
  const res = await fetch(`${hub.url}/metrics`, { headers });
  if (res.status !== 200) throw new Error(`/metrics ${res.status}: ${await res.text()}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain; version=0.0.4')) throw new Error(`content-type ${res.headers.get('content-type')}`);
  return parseExposition(await res.text());
}

async function upload(hub: TestHub, entries: readonly BatchEntry[]): Promise<number> {
  const { body, contentType } = encodeBatch(entries);
  const res = await fetch(`${hub.url}${BATCH_PATH}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-api-key': hub.apiKey },
    body: new Uint8Array(body),
  });
  await res.arrayBuffer();
  return res.status;
}

const HUB_FAMILIES = [
  'alpr_hub_ingest_requests_total',
  'alpr_hub_ingest_detections_total',
  'alpr_hub_ingest_duration_seconds',
  'alpr_hub_search_duration_seconds',
  'alpr_hub_alert_latency_seconds',
  'alpr_hub_alert_queue_depth',
  'alpr_hub_notification_queue_depth',
  'alpr_hub_health_alerts_open',
  'alpr_hub_live_connections',
  'alpr_hub_backpressure_active',
  'alpr_hub_backpressure_trigger',
  'alpr_hub_load_measurement',
  'alpr_hub_db_connections',
  'alpr_hub_image_store_bytes',
  'alpr_hub_image_store_segments',
  'alpr_hub_metrics_source_errors_total',
  'alpr_hub_search_postings_unsealed_reads',
];

t.test('GET /metrics from loopback parses line by line and names every family of docs/metrics.md', async (t) => {
  const hub = await hubFor(t);
  const first = await scrape(hub);
  for (const family of HUB_FAMILIES) t.ok(first.types.has(family), `${family} has a TYPE`);
  t.equal(first.types.get('alpr_hub_ingest_duration_seconds'), 'histogram');
  // The shipped Grafana dashboard asks only for series this endpoint serves.
  const dashboard = readFileSync(new URL('../../../docs/grafana/alpr-hub.json', import.meta.url), 'utf8');
  const asked = new Set([...dashboard.matchAll(/alpr_hub_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')));
  t.ok(asked.size >= 8, `${asked.size} metrics on the dashboard`);
  for (const name of asked) t.ok(first.types.has(name), `dashboard metric ${name} is served`);

  t.equal(first.types.get('alpr_hub_ingest_requests_total'), 'counter');
  t.equal(
    valueOf(first, 'alpr_hub_db_connections', { state: hub.deps.db.kind === 'postgres' ? 'active' : 'embedded' }) >= 1,
    true,
    'the scrape itself holds a connection',
  );
  for (const source of ['alert_queue', 'notification_queue', 'health_alerts', 'pg_stat_activity', 'image_segments', 'alerts', 'trigram_block_seal']) {
    t.equal(valueOf(first, 'alpr_hub_metrics_source_errors_total', { source }), 0, `${source} read without error`);
  }
});

t.test('counters, histograms and gauges move when batches flow', async (t) => {
  const hub = await hubFor(t);
  const before = await scrape(hub);
  const one = sampleDetection();
  const broken = { ...sampleDetection(), plate: { text: 'AB12CDE', confidence: 7 } };
  t.equal(
    await upload(hub, [{ detection: one, fullScene: jpegLike(30_000) }, { detection: one }, { detection: broken }, { detection: sampleDetection() }]),
    201,
  );
  t.equal(await upload(hub, [{ detection: one }]), 201, 'the same read again: a duplicate');
  hub.deps.load.override({ dbWriteLatencyMs: 0, imageStoreLatencyMs: 0, queueDepth: 20_000 });
  t.equal(await upload(hub, [{ detection: sampleDetection() }]), 202, 'under load');
  const refused = await fetch(`${hub.url}${BATCH_PATH}`, { method: 'POST', headers: { 'x-api-key': 'wrong' } });
  t.equal(refused.status, 401);
  const after = await scrape(hub);
  const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);

  t.equal(delta('alpr_hub_ingest_requests_total', { source: 'batch', result: 'accepted' }), 2);
  t.equal(delta('alpr_hub_ingest_requests_total', { source: 'batch', result: 'backpressure' }), 1);
  t.equal(delta('alpr_hub_ingest_requests_total', { source: 'batch', result: 'client_error' }), 1);
  t.equal(delta('alpr_hub_ingest_detections_total', { result: 'stored' }), 3);
  t.equal(delta('alpr_hub_ingest_detections_total', { result: 'duplicate' }), 2, 'repeated in the batch, then uploaded again');
  t.equal(delta('alpr_hub_ingest_detections_total', { result: 'rejected' }), 1);
  t.equal(delta('alpr_hub_ingest_duration_seconds_count', { source: 'batch' }), 4);
  t.equal(delta('alpr_hub_alert_queue_depth', { status: 'pending' }), 3, 'three stored reads wait for the alert worker');
  t.ok(valueOf(after, 'alpr_hub_image_store_bytes') >= 30_000, 'the image is in a segment file');
  t.ok(valueOf(after, 'alpr_hub_image_store_segments') >= 1);
  t.equal(valueOf(after, 'alpr_hub_backpressure_active'), 1);
  t.equal(valueOf(after, 'alpr_hub_backpressure_trigger', { reason: 'queue_depth' }), 1);
  t.equal(valueOf(after, 'alpr_hub_backpressure_trigger', { reason: 'high_cpu' }), 0);
  t.equal(valueOf(after, 'alpr_hub_load_measurement', { measure: 'queue_depth' }), 20_000);
});

t.test('an alert raised by the worker is observed once in the detection-to-alert histogram', async (t) => {
  const hub = await hubFor(t);
  const ctx = { db: hub.deps.db, clock: movableClock(new Date()), log: createLog('silent') };
  const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
  const list = await createWatchlist(ctx, actor, { name: 'Metrics' });
  await addEntry(ctx, actor, list.id, { plate: 'ME7RIC' });
  const before = await scrape(hub);
  t.equal(await upload(hub, [{ detection: sampleDetection({ plate: { text: 'ME7RIC', confidence: 0.9 } }) }, { detection: sampleDetection() }]), 201);
  const worker = createAlertWorker(ctx, createWatchlistCache(ctx));
  while ((await worker.runOnce()) > 0) {
    /* drain the queue */
  }
  const after = await scrape(hub);
  t.equal(valueOf(after, 'alpr_hub_alert_latency_seconds_count') - valueOf(before, 'alpr_hub_alert_latency_seconds_count'), 1);
  t.equal(valueOf(after, 'alpr_hub_alert_queue_depth', { status: 'pending' }), 0, 'the queue drained');
  const again = await scrape(hub);
  t.equal(valueOf(again, 'alpr_hub_alert_latency_seconds_count'), valueOf(after, 'alpr_hub_alert_latency_seconds_count'), 'not observed twice');
});

t.test('access: loopback or the bearer token; refusals carry the error body', async (t) => {
  // The hub believes X-Forwarded-For from its loopback "proxy", so a request can come from
  // another host over real HTTP on loopback.
  const hub = await hubFor(t, { trustedProxies: ['127.0.0.1', '::1'], metricsToken: TOKEN });
  const remote = { 'x-forwarded-for': '203.0.113.9' };
  const get = (headers: Record<string, string>) => fetch(`${hub.url}/metrics`, { headers });

  t.equal((await get({})).status, 200, 'loopback without a token');
  const noToken = await get(remote);
  t.equal(noToken.status, 401);
  t.equal(noToken.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  t.match(await noToken.json(), { error: { code: 'unauthorized' } });
  const wrong = await get({ ...remote, authorization: `Bearer ${TOKEN}y` });
  t.equal(wrong.status, 401);
  t.equal((await get({ authorization: 'Bearer nope' })).status, 401, 'a wrong token is refused from loopback too');
  t.equal((await get({ ...remote, authorization: 'Basic abc' })).status, 401);
  const right = await get({ ...remote, authorization: `Bearer ${TOKEN}` });
  t.equal(right.status, 200);
  t.ok(parseExposition(await right.text()).types.has('alpr_hub_ingest_requests_total'));

  const closed = await hubFor(t, { trustedProxies: ['127.0.0.1', '::1'] });
  const forbidden = await fetch(`${closed.url}/metrics`, { headers: remote });
  t.equal(forbidden.status, 403, 'no token configured: other hosts are refused');
  t.match(await forbidden.json(), { error: { code: 'forbidden' } });
  t.equal((await fetch(`${closed.url}/metrics`, { method: 'POST', headers: remote })).status, 404);
});

t.test('a search moves the search latency histogram; a refused one does not', async (t) => {
  const ctx = await adminTestContext(t);
  const viewer = await ctx.session('viewer');
  const metrics = ctx.deps.metrics;
  if (!metrics) throw new Error('createHubApp sets deps.metrics');
  const read = async () => parseExposition(await metrics.registry.metrics());
  const before = await read();
  t.equal((await send(ctx, viewer, 'GET', `${SEARCH_PATH}?plate=AB12CDE&purpose=stolen_vehicle&reason=burglary%20case%2042`)).status, 200);
  t.equal((await send(ctx, null, 'GET', `${SEARCH_PATH}?plate=AB12CDE&purpose=stolen_vehicle&reason=burglary%20case%2042`)).status, 401);
  // Through app.request with a forged non-loopback socket address: refused.
  const res = await send(ctx, viewer, 'GET', '/metrics');
  t.equal(res.status, 403);
  const after = await read();
  t.equal(
    valueOf(after, 'alpr_hub_search_duration_seconds_count', { route: 'search' }) -
      valueOf(before, 'alpr_hub_search_duration_seconds_count', { route: 'search' }),
    1,
  );
});
