import t from 'tap';
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { APPLIANCE_ERROR_STATUS, ApplianceError } from '../errors.ts';
import { createApplianceHttpApp } from '../http/app.ts';
import { pushAdmission } from '../runtime/ingest-admission.ts';
import { cameraConfigSchema } from './config.ts';
import type { SinkItem, SinkStatus } from './ports.ts';
import { systemClock } from './ports.ts';
import { memoryLog, memorySink, until } from './memory.test-helper.ts';
import { createIngestApp } from './vendor-a-push.ts';
import type { IngestDeps } from './vendor-a-push.ts';

const fixture = (path: string): Buffer => readFileSync(new URL(`../../../shared/src/adapters/${path}`, import.meta.url));

const gate = cameraConfigSchema.parse({
  id: 'gate-push',
  vendor: 'vendor_a',
  mode: 'push',
  mac: '00:11:22:aa:bb:cc',
  timezone: 'Europe/Paris',
  direction: { forward: 'exiting', reverse: 'entering' },
});

/** The code of an error answer, checked against the appliance's closed set and the status it gives that code. */
async function checkRefusal(t: Test, res: Response): Promise<string> {
  const body = (await res.clone().json()) as { error?: { code?: unknown } };
  const code = String(body.error?.code);
  const status = Object.hasOwn(APPLIANCE_ERROR_STATUS, code) ? APPLIANCE_ERROR_STATUS[code as keyof typeof APPLIANCE_ERROR_STATUS] : undefined;
  t.equal(status, res.status, `answered ${res.status} ${code}: a code of the appliance's closed set (errors.ts), with its status`);
  return code;
}

/** The push receiver behind the production edge (http/app.ts); every error answer it gives is checked by checkRefusal. */
async function listen(t: Test, over: Partial<IngestDeps> & { sink?: IngestDeps['sink'] } = {}) {
  const sink = memorySink();
  const log = memoryLog();
  const app = createApplianceHttpApp(log, [createIngestApp({ cameras: () => [gate], sink, log, clock: systemClock, ...over })]);
  const fetch = async (request: Request): Promise<Response> => {
    const res = await app.fetch(request);
    if (res.status >= 400) await checkRefusal(t, res);
    return res;
  };
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, sink, log };
}

const post = (url: string, body: Uint8Array | string, contentType = 'application/xml') =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body) });

t.test('simulated camera pushing XML and multipart: every read stored once, images kept, camera found by MAC', async (t) => {
  const { url, sink } = await listen(t);
  const camera = await startVendorACamera({
    mode: 'push',
    pushUrl: `${url}/api/v1/ingest/vendor_a`,
    pushFormat: 'mixed',
    mac: '00:11:22:aa:bb:cc',
    ratePerSecond: 0,
    seed: 11,
    cropBytes: 1500,
    sceneBytes: 3000,
    pushRetryDelayMs: 10,
  });
  t.teardown(() => camera.close());
  camera.addReads(25);
  await camera.idle();
  t.same(camera.undelivered, [], 'the camera got a 2xx for every post');
  const readable = camera.delivered.filter((d) => !d.unknown);
  t.same(sink.ids().sort(), readable.map((d) => d.detectionId).sort(), 'one detection per readable read');
  for (const d of readable) {
    t.equal(sink.imageHash(d.detectionId, 'plate_crop'), d.images.plateCrop, 'plate crop as sent (or none)');
    t.equal(sink.imageHash(d.detectionId, 'full_scene'), d.images.fullScene, 'scene as sent (or none)');
  }
  t.ok(
    sink.items.every((i) => i.detection.camera.id === 'gate-push' && i.source === 'gate-push'),
    'configured camera matched',
  );
});

t.test('2xx only after the sink committed; 503 with Retry-After when it refuses', async (t) => {
  const committed: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  let failing = false;
  let called = false;
  const sink = {
    seen: () => new Set<string>(),
    async accept(item: SinkItem): Promise<SinkStatus> {
      if (failing) throw new Error('disk full');
      called = true;
      await held;
      committed.push(item.detection.detection_id);
      return 'stored';
    },
  };
  const { url, log } = await listen(t, { sink });
  const xml = fixture('vendor-a/fixtures/alert-hikvision-ns.xml');

  let answered = false;
  const pending = post(`${url}/api/v1/ingest/vendor_a`, xml).then((r) => {
    answered = true;
    return r;
  });
  t.ok(await until(() => called), 'the sink was asked');
  await new Promise((r) => setImmediate(r));
  t.equal(answered, false, 'no answer while the commit is pending');
  release();
  const res = await pending;
  t.equal(res.status, 200);
  t.same(await res.json(), { accepted: 1, duplicates: 0, ignored: 0 });
  t.equal(committed.length, 1);

  failing = true;
  const refused = await post(`${url}/api/v1/ingest/vendor_a`, xml);
  t.equal(refused.status, 503, 'sink failure: the camera must retry');
  t.equal(refused.headers.get('retry-after'), '5');
  t.match(await refused.json(), { error: { code: 'sink_refused', message: 'detection not stored; retry later' } }, "not the sink's own words");
  t.ok(log.messages('error').includes('push not committed; camera told to retry'));
});

t.test('context from the configured camera: timezone and direction mapping', async (t) => {
  // The appliance's clock a minute after the read: a capture in the future would be taken
  // for a camera clock ahead and corrected (push-clock.ts), which is not what this tests.
  const { url, sink } = await listen(t, { clock: { now: () => Date.parse('2030-07-02T01:05:05Z') } });
  const xml = fixture('vendor-a/fixtures/alert-hikvision-ns.xml').toString('utf8').replace('2030-01-02T03:04:05+01:00', '2030-07-02T03:04:05');
  const res = await post(`${url}/api/v1/ingest/auto`, xml);
  t.equal(res.status, 200);
  const d = sink.items[0]?.detection;
  t.equal(d?.timestamp, '2030-07-02T01:04:05.000Z', 'offset-less time read in Europe/Paris (summer)');
  t.equal(d?.vehicle?.direction, 'exiting', 'forward mapped by this camera to exiting');
});

t.test('no plate: 200 accepted 0; unreadable: 400; unknown vendor: 404', async (t) => {
  const { url, sink } = await listen(t);
  for (const name of ['alert-vmd.xml', 'alert-unknown-plate.xml']) {
    const res = await post(`${url}/api/v1/ingest/vendor_a`, fixture(`vendor-a/fixtures/${name}`));
    t.equal(res.status, 200, name);
    t.match(await res.json(), { accepted: 0 });
  }
  const bad = await post(`${url}/api/v1/ingest/vendor_a`, '<EventNotificationAlert><oops');
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { code: 'unparseable' } });
  const junk = await post(`${url}/api/v1/ingest/auto`, 'hello', 'text/plain');
  t.equal(junk.status, 400);
  const unknown = await post(`${url}/api/v1/ingest/vendor_z`, '<x/>');
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { error: { code: 'not_found' } });
  t.equal(sink.items.length, 0);
});

t.test('every refusal the push receiver sends is a code of the closed set, with its status', async (t) => {
  const xml = fixture('vendor-a/fixtures/alert-hikvision-ns.xml');
  const refusing = { seen: () => new Set<string>(), accept: () => Promise.reject(new ApplianceError('sink_refused', 'disk full')) };
  const secret = 'sixteen-chars-secret';
  const pinned = cameraConfigSchema.parse({ ...gate, host: '127.0.0.1', pushSecret: secret });
  const admit = (acceptUnknown: boolean) => pushAdmission({ addressOf: () => '127.0.0.1', acceptUnknown: () => acceptUnknown, log: memoryLog() });
  const open = await listen(t, { maxBodyBytes: 64 * 1024 });
  const full = await listen(t, { sink: refusing });
  const guarded = await listen(t, { cameras: () => [pinned], admit: admit(true) });
  const closed = await listen(t, { cameras: () => [], admit: admit(false) });
  const elsewhere = await listen(t, { cameras: () => [cameraConfigSchema.parse({ ...gate, host: '192.168.1.64' })], admit: admit(true) });
  const cases: [string, Promise<Response>, string][] = [
    ['unknown vendor', post(`${open.url}/api/v1/ingest/vendor_z`, xml), 'not_found'],
    ['over the byte cap', post(`${open.url}/api/v1/ingest/vendor_a`, Buffer.alloc(65 * 1024, 0x20)), 'payload_too_large'],
    ['a bad camera name', post(`${open.url}/api/v1/ingest/generic_json?camera=no%20spaces`, '{}', 'application/json'), 'bad_request'],
    ['an unreadable payload', post(`${open.url}/api/v1/ingest/vendor_a`, '<EventNotificationAlert><oops'), 'unparseable'],
    ['a refused sink', post(`${full.url}/api/v1/ingest/vendor_a`, xml), 'sink_refused'],
    ['no push secret', post(`${guarded.url}/api/v1/ingest/vendor_a`, xml), 'bad_push_secret'],
    ['from another address than the pinned one', post(`${elsewhere.url}/api/v1/ingest/vendor_a`, xml), 'wrong_source'],
    ['an unknown camera, refused', post(`${closed.url}/api/v1/ingest/vendor_a`, xml), 'unknown_camera'],
  ];
  for (const [name, answer, expected] of cases) {
    const res = await answer;
    t.equal(await checkRefusal(t, res), expected, name);
    if (expected === 'sink_refused') t.equal(res.headers.get('retry-after'), '5', `${name}: Retry-After`);
    if (expected === 'bad_push_secret') t.match(res.headers.get('www-authenticate'), /^Basic /, `${name}: WWW-Authenticate`);
  }
  const stored = [open, full, guarded, closed, elsewhere].reduce((n, server) => n + server.sink.items.length, 0);
  t.equal(stored, 0, 'nothing refused was stored');
});

t.test('body cap: 413 by Content-Length and for a chunked body', async (t) => {
  const { url, sink } = await listen(t, { maxBodyBytes: 4096 });
  const big = Buffer.alloc(5000, 0x20);
  const res = await post(`${url}/api/v1/ingest/vendor_a`, big);
  t.equal(res.status, 413);
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/v1/ingest/vendor_a`,
      { method: 'POST', headers: { 'content-type': 'application/xml', 'transfer-encoding': 'chunked' } },
      (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    for (let i = 0; i < 10; i++) req.write(Buffer.alloc(1000, 0x20));
    req.end();
  });
  t.equal(chunked, 413);
  const ok = await post(`${url}/api/v1/ingest/vendor_a`, fixture('vendor-a/fixtures/alert-hikvision-ns.xml'));
  t.equal(ok.status, 200, 'a normal alert still fits');
  t.equal(sink.items.length, 1);
});

t.test('vendor_b event JSON pushed by a relay: MAC from the bootstrap map', async (t) => {
  const cameras = new Map([['89abcdef0123456789abcdef', { id: '89abcdef0123456789abcdef', mac: '7cd8b328641b' }]]);
  const { url, sink } = await listen(t, { vendorBCameras: () => cameras });
  const event = {
    id: '0123456789abcdef01234567',
    modelKey: 'event',
    type: 'smartDetectZone',
    start: 1900000000000,
    end: 1900000012000,
    smartDetectTypes: ['vehicle', 'licensePlate'],
    camera: '89abcdef0123456789abcdef',
    metadata: { licensePlate: { name: 'XY12 ABC', confidenceLevel: 88 } },
  };
  const res = await post(`${url}/api/v1/ingest/auto`, JSON.stringify(event), 'application/json');
  t.equal(res.status, 200);
  t.match(await res.json(), { accepted: 1 });
  t.equal(sink.items[0]?.detection.camera.mac, '7cd8b328641b');
  t.equal(sink.items[0]?.detection.plate.text, 'XY12ABC');
});
