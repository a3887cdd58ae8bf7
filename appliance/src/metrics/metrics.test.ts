import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { parseExposition, valueOf } from '@alpr/shared/metrics/exposition.test-helper';
import { insertDetection } from '../buffer/insert.ts';
import { sampleDetection, sampleImages } from '../buffer/buffer.test-helper.ts';
import { readEnvironment } from '../config/load.ts';
import type { AddressOf } from '../http/request-guards.ts';
import { createLog } from '../log.ts';
import { createAppliance } from '../runtime/appliance.ts';
import type { BufferedItem, UplinkBufferPort } from '../uplink/ports.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { createApplianceMetrics } from './appliance-metrics.ts';
import { failureKind, timedUplinkPort } from './upload-timing.ts';

const TOKEN = 'appliance-metrics-'.padEnd(40, 'z');

/** The appliance as main.ts runs it (real SQLite buffer, real HTTP on loopback); `from` forges the client address. */
async function startAppliance(t: Test, toml: string, from: { address: string | undefined }) {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-metrics-appliance-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  await writeFile(join(dataDir, 'appliance.toml'), `[setup]\nhost = "127.0.0.1"\nport = 0\n${toml}`);
  const addressOf: AddressOf = () => from.address;
  const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: dataDir }), {
    identity: fixedIdentity('serial:METRICS-1'),
    log: createLog('silent'),
    diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
    addressOf,
  });
  t.teardown(() => appliance.stop());
  const url = (await appliance.start()).url;
  const buffer = appliance.buffer();
  if (!buffer) throw new Error('no buffer');
  return { url, buffer };
}

t.test('GET /metrics parses, and the buffer figures move as detections arrive', async (t) => {
  const from = { address: '127.0.0.1' as string | undefined };
  const { url, buffer } = await startAppliance(t, '', from);
  const scrape = async () => {
    const res = await fetch(`${url}/metrics`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  };
  const before = await scrape();
  for (const family of [
    'alpr_appliance_buffer_detections',
    'alpr_appliance_buffer_oldest_pending_age_seconds',
    'alpr_appliance_buffer_bytes',
    'alpr_appliance_buffer_dead_letters',
    'alpr_appliance_camera_state',
    'alpr_appliance_camera_reads_total',
    'alpr_appliance_camera_errors_total',
    'alpr_appliance_uplink_detections_total',
    'alpr_appliance_uplink_consecutive_failures',
    'alpr_appliance_uplink_waiting',
    'alpr_appliance_upload_duration_seconds',
    'alpr_appliance_upload_failures_total',
    'alpr_appliance_process_resident_memory_bytes',
    'alpr_appliance_nodejs_eventloop_lag_p99_seconds',
    'alpr_appliance_nodejs_heap_size_used_bytes',
    'alpr_appliance_process_cpu_seconds_total',
  ]) {
    t.ok(before.types.has(family), `${family} has a TYPE`);
  }
  t.equal(valueOf(before, 'alpr_appliance_uplink_waiting', { reason: 'no_hub' }), 1, 'unclaimed: nothing uploads');
  t.ok(valueOf(before, 'alpr_appliance_process_resident_memory_bytes') > 10 * 1024 * 1024, 'the resident memory of this process');
  t.ok(valueOf(before, 'alpr_appliance_nodejs_eventloop_lag_p99_seconds') >= 0, 'the event loop delay, p99');
  // The shipped Grafana dashboard asks only for series this endpoint serves.
  const dashboard = readFileSync(new URL('../../../docs/grafana/alpr-appliance.json', import.meta.url), 'utf8');
  const asked = new Set([...dashboard.matchAll(/alpr_appliance_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')));
  t.ok(asked.size >= 8, `${asked.size} metrics on the dashboard`);
  for (const name of asked) t.ok(before.types.has(name), `dashboard metric ${name} is served`);

  insertDetection(buffer, sampleDetection({ plate: 'ME7RIC', atMs: Date.now() }), sampleImages());
  insertDetection(buffer, sampleDetection({ plate: 'ME7RID', atMs: Date.now() + 1 }));
  const after = await scrape();
  t.equal(
    valueOf(after, 'alpr_appliance_buffer_detections', { state: 'pending' }) - valueOf(before, 'alpr_appliance_buffer_detections', { state: 'pending' }),
    2,
  );
  t.ok(valueOf(after, 'alpr_appliance_buffer_bytes', { kind: 'images' }) >= 85 * 1024, 'the images are counted');
  t.ok(valueOf(after, 'alpr_appliance_buffer_oldest_pending_age_seconds') >= 0);
});

t.test('access: loopback, or the bearer token from [metrics]; the rest of the LAN is refused', async (t) => {
  const from = { address: '192.168.1.50' as string | undefined };
  const { url } = await startAppliance(t, `[metrics]\ntoken = "${TOKEN}"\n`, from);
  const get = (headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers });
  const refused = await get();
  t.equal(refused.status, 401);
  t.equal(refused.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  t.match(await refused.json(), { error: { code: 'unauthorized' } });
  t.equal((await get({ authorization: `Bearer ${TOKEN}!` })).status, 401);
  const ok = await get({ authorization: `Bearer ${TOKEN}` });
  t.equal(ok.status, 200);
  t.ok(parseExposition(await ok.text()).types.has('alpr_appliance_buffer_detections'));
  from.address = '::1';
  t.equal((await get()).status, 200, 'loopback needs no token');

  const open = { address: '10.0.0.9' as string | undefined };
  const noToken = await startAppliance(t, '', open);
  const forbidden = await fetch(`${noToken.url}/metrics`);
  t.equal(forbidden.status, 403);
  t.match(await forbidden.json(), { error: { code: 'forbidden' } });
  open.address = undefined;
  t.equal((await fetch(`${noToken.url}/metrics`)).status, 403, 'an unknown address is not loopback');
});

t.test('upload timing: the first settlement after nextBatch ends the timing; a release before any is a failure', async (t) => {
  const metrics = createApplianceMetrics();
  let now = 0;
  const item = { id: 1 } as unknown as BufferedItem;
  const calls: string[] = [];
  const inner: UplinkBufferPort = {
    pendingStats: () => ({ count: 1, bytes: 1, oldestReceivedMs: 0, cameraIds: [] }),
    nextBatch: () => [item],
    markUploaded: () => void calls.push('uploaded'),
    markRejected: () => void calls.push('rejected'),
    release: () => void calls.push('released'),
  };
  const port = timedUplinkPort(inner, metrics, () => now);
  const read = async () => parseExposition(await metrics.registry.metrics());

  await port.nextBatch({ maxItems: 50, maxBytes: 1 });
  now += 250;
  await port.markUploaded([1]);
  await port.release?.([2], 'not acknowledged'); // a 202's unsent rest: not a failure
  await port.nextBatch({ maxItems: 50, maxBytes: 1 });
  now += 4000;
  await port.release?.([1], 'HTTP 503 with a body that is not JSON');
  await port.nextBatch({ maxItems: 50, maxBytes: 1 });
  await port.markRejected(1, 'bad plate');
  const m = await read();
  t.same(calls, ['uploaded', 'released', 'released', 'rejected'], 'every call reaches the buffer');
  t.equal(valueOf(m, 'alpr_appliance_upload_duration_seconds_count', { outcome: 'acknowledged' }), 1);
  t.equal(valueOf(m, 'alpr_appliance_upload_duration_seconds_sum', { outcome: 'acknowledged' }), 0.25);
  t.equal(valueOf(m, 'alpr_appliance_upload_duration_seconds_bucket', { outcome: 'failed', le: '2.5' }), 0);
  t.equal(valueOf(m, 'alpr_appliance_upload_duration_seconds_bucket', { outcome: 'failed', le: '5' }), 1);
  t.equal(valueOf(m, 'alpr_appliance_upload_duration_seconds_count', { outcome: 'rejected' }), 1);
  t.equal(valueOf(m, 'alpr_appliance_upload_failures_total', { kind: 'http_5xx' }), 1);
  t.equal(valueOf(m, 'alpr_appliance_upload_failures_total', { kind: 'other' }), 0);
});

t.test('failure kinds from the release reasons the uplink writes', async (t) => {
  t.equal(failureKind('HTTP 401'), 'key_rejected');
  t.equal(failureKind('HTTP 401: collector_replaced'), 'key_rejected');
  t.equal(failureKind('HTTP 403: collector_suspended'), 'suspended');
  t.equal(failureKind('HTTP 413 with an oversized body'), 'http_4xx');
  t.equal(failureKind('HTTP 502 with a malformed batch response'), 'http_5xx');
  t.equal(failureKind('network: ECONNREFUSED'), 'network');
  t.equal(failureKind('delivery interrupted'), 'other');
});
