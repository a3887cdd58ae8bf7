import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { verifyChain } from '../db/chain.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { ingestPath } from '../platform/http/paths.ts';
import { createLog } from '../platform/log.ts';
import { sha256Hex } from '../images/image-store.ts';
import { startTestHub, type TestHub } from './uploads.test-helper.ts';

const fixture = (path: string): Buffer => readFileSync(new URL(`../../../shared/src/adapters/${path}`, import.meta.url));
const MULTIPART_TYPE = 'multipart/form-data; boundary=boundary';

interface Answer {
  status: number;
  body: { accepted?: number; results?: { status: string; id?: string; reason?: string }[]; error?: { code: string; message: string } };
}

const FIXTURE_ERA = { now: () => new Date('2030-07-02T00:00:00.000Z') };

async function setup(t: Test, logLines?: string[]): Promise<TestHub> {
  const db = await testDatabase(t);
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => logLines?.push(chunk.toString()));
  // The captured fixtures are dated 2030: the hub's clock is set after them, or the
  // capture-time margin (docs/ingest.md) would reject them as far-future reads.
  const hub = await startTestHub({ db, clock: FIXTURE_ERA, config: { maxWebhookBytes: 64 * 1024 }, ...(logLines ? { log: createLog('trace', sink) } : {}) });
  t.teardown(() => hub.close());
  return hub;
}

async function push(hub: TestHub, path: string, body: Buffer, contentType: string, query: Record<string, string> = {}): Promise<Answer> {
  const params = new URLSearchParams({ key: hub.apiKey, ...query });
  const res = await request(`${hub.url}${ingestPath(path)}?${params}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
}

const rows = (hub: TestHub) =>
  hub.deps.db.sql<{
    detection_id: string;
    plate_number: string;
    camera_id: string;
    captured_at: Date;
    full_image_hash: string | null;
    crop_image_hash: string | null;
  }>(`SELECT detection_id, plate_number, camera_id, captured_at, full_image_hash, crop_image_hash FROM detections ORDER BY chain_seq`);

t.test('vendor_a XML and multipart pushes are stored like uploads (images hashed, chained)', async (t) => {
  const hub = await setup(t);
  const xml = await push(hub, 'vendor_a', fixture('vendor-a/fixtures/alert-isapi-ns.xml'), 'application/xml');
  t.match(xml, { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  const multipart = await push(hub, 'vendor_a', fixture('vendor-a/fixtures/multipart-crlf.bin'), MULTIPART_TYPE);
  t.match(multipart, { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  const [first, second] = await rows(hub);
  t.match(first, { plate_number: 'AB123CD', camera_id: '001122aabbdd-ch2', full_image_hash: null });
  t.equal(second?.plate_number, 'XY12345');
  t.equal(second?.captured_at.toISOString(), '2030-01-02T02:04:05.000Z', 'camera offset honoured');
  for (const hash of [second?.full_image_hash, second?.crop_image_hash]) {
    if (!hash) throw new Error('image hash missing');
    const bytes = await hub.deps.images.get(hash);
    t.equal(bytes && sha256Hex(bytes), hash, 'image stored under its hash');
  }
  const again = await push(hub, 'vendor_a', fixture('vendor-a/fixtures/multipart-crlf.bin'), MULTIPART_TYPE);
  t.match(again.body, { accepted: 1, results: [{ status: 'duplicate' }] }, 'a camera retry is a duplicate');
  t.same(await verifyChain(hub.deps.db, hub.collectorId), { ok: true, count: 2 });
});

t.test('vendor_b JSON with the camera MAC in the URL, and the auto route for both vendors', async (t) => {
  const hub = await setup(t);
  const json = fixture('vendor-b/fixtures/integration-add.json');
  const b = await push(hub, 'vendor_b', json, 'application/json', { mac: '7C:D8:B3:28:64:1B' });
  t.match(b, { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  const noMac = await push(hub, 'auto', fixture('vendor-b/fixtures/event-update-plate.json'), 'application/json');
  t.match(noMac, { status: 200, body: { accepted: 0, results: [{ status: 'rejected', reason: /MAC/ }] } }, 'no MAC: reported, not stored');
  const autoA = await push(hub, 'auto', fixture('vendor-a/fixtures/alert-hikvision-ns.xml'), 'application/xml');
  t.match(autoA, { status: 200, body: { accepted: 1 } });
  t.same(
    (await rows(hub)).map((r) => r.plate_number),
    ['GH56IJK', 'XY12345'],
  );
  t.equal((await rows(hub))[0]?.camera_id, '89abcdef0123456789abcdef');
});

t.test('a registered camera gives its timezone and its uuid', async (t) => {
  const hub = await setup(t);
  const [camera] = await hub.deps.db.sql<{ id: string }>(
    `INSERT INTO cameras (collector_id, vendor, host, port, name, mac, timezone, mode)
     VALUES ($1, 'vendor_a', '192.0.2.20', 80, 'Depot', '001122aabbee', 'America/New_York', 'push') RETURNING id::text AS id`,
    [hub.collectorId],
  );
  // The fixture's time has no offset: 10:00 in New York (EDT, UTC-4) is 14:00 UTC.
  const res = await push(hub, 'vendor_a', fixture('vendor-a/fixtures/alert-no-ns-no-decl.xml'), 'text/xml');
  t.match(res, { status: 200, body: { accepted: 1 } });
  const [row] = await rows(hub);
  t.equal(row?.captured_at.toISOString(), '2030-07-01T14:00:00.000Z');
  t.equal(row?.camera_id, camera?.id);
});

t.test('no plate -> 200 accepted 0; unparseable -> 400 one line; unknown vendor -> 404; over the cap -> 413', async (t) => {
  const hub = await setup(t);
  t.same(await push(hub, 'vendor_a', fixture('vendor-a/fixtures/alert-unknown-plate.xml'), 'application/xml'), {
    status: 200,
    body: { accepted: 0, results: [] },
  });
  t.same(await push(hub, 'vendor_a', fixture('vendor-a/fixtures/alert-vmd.xml'), 'application/xml'), { status: 200, body: { accepted: 0, results: [] } });
  const garbage = await push(hub, 'auto', Buffer.from('hello\nworld'), 'text/plain');
  t.equal(garbage.status, 400);
  t.match(garbage.body.error?.message, /^[^\n]+$/, 'one line');
  const brokenXml = await push(hub, 'vendor_a', Buffer.from('<EventNotificationAlert><macAddress>'), 'application/xml');
  t.equal(brokenXml.status, 400);
  t.equal((await push(hub, 'vendor_z', Buffer.from('{}'), 'application/json')).status, 404);
  t.equal((await push(hub, 'vendor_a', Buffer.alloc(70 * 1024, 0x20), 'application/xml')).status, 413);
  t.equal((await push(hub, 'vendor_b', Buffer.from('{}'), 'application/json', { mac: 'zz' })).status, 400);
  t.equal((await rows(hub)).length, 0);
});

t.test('the key query parameter is checked like X-API-Key and never logged', async (t) => {
  const logLines: string[] = [];
  const hub = await setup(t, logLines);
  const xml = fixture('vendor-a/fixtures/alert-isapi-ns.xml');
  const post = (query: string) =>
    request(`${hub.url}${ingestPath('vendor_a')}${query}`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml }).then(async (res) => ({
      status: res.statusCode,
      body: (await res.body.json()) as Answer['body'],
    }));
  t.equal((await post('')).status, 401, 'no key');
  t.equal((await post('?key=nonsense')).status, 401, 'malformed key');
  const unknownKey = `alpr_${'A'.repeat(43)}`;
  t.equal((await post(`?key=${unknownKey}`)).status, 401, 'well-formed but unknown key');
  t.equal((await post(`?key=${hub.apiKey}`)).status, 200, 'the valid key');
  await hub.deps.db.sql(`UPDATE api_keys SET revoked_at = now(), is_active = false WHERE collector_id = $1`, [hub.collectorId]);
  t.equal((await post(`?key=${hub.apiKey}`)).status, 401, 'revoked key');
  t.equal((await rows(hub)).length, 1, 'stored only with the valid key');
  const logs = logLines.join('');
  t.ok(logs.includes('collector API key refused'), 'refusals are logged');
  for (const secret of [hub.apiKey, unknownKey]) t.notOk(logs.includes(secret), 'the key never appears in the log');
  t.notOk(logs.includes('key='), 'no query string in the log');
});
