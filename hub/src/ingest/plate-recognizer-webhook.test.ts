/**
 * Plate Recognizer posting straight to the hub's camera webhook (docs/readers.md "Straight to the
 * hub"): Snapshot in the cloud has no appliance to post to, Stream may post to either. Real HTTP on
 * loopback, the public fixtures of the shared adapter, a real database and image store: the read
 * and its candidates stored once, the "Webhook with Image" frame stored and decoding, an
 * anonymous Snapshot post refused until the URL names the camera, the hub's key required.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { request } from 'undici';
import { sceneJpeg } from '../../../scripts/simulators/draw-plate.ts';
import { verifyChain } from '../db/chain.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { ingestPath } from '../platform/http/paths.ts';
import { encodeMultipart, startTestHub } from './uploads.test-helper.ts';

type Post = { hook: Record<string, unknown>; data: { camera_id: string | null; results: Record<string, unknown>[] } & Record<string, unknown> };
const fixture = (name: string): Post =>
  JSON.parse(readFileSync(new URL(`../../../shared/src/adapters/plate-recognizer/fixtures/${name}`, import.meta.url), 'utf8')) as Post;

interface Answer {
  status: number;
  body: { accepted?: number; results?: { status: string; reason?: string }[]; error?: { code: string; message: string } };
}

const db = await testDatabase(t);
// The fixtures are from 2021 and 2025: any later hub clock takes them (only far-future reads are refused).
const hub = await startTestHub({ db, clock: { now: () => new Date('2026-01-15T00:00:00.000Z') } });
t.teardown(() => hub.close());

async function post(body: Buffer | string, query: Record<string, string> = {}, contentType = 'application/json'): Promise<Answer> {
  const params = new URLSearchParams({ key: hub.apiKey, ...query });
  const res = await request(`${hub.url}${ingestPath('plate_recognizer')}?${params}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
}

type Row = {
  plate_number: string;
  camera_id: string;
  captured_at: Date;
  full_image_hash: string | null;
  plate_candidates: { text: string; confidence?: number }[] | null;
};
const rows = () => db.sql<Row>(`SELECT plate_number, camera_id, captured_at, full_image_hash, plate_candidates FROM detections ORDER BY chain_seq`);

t.test('Stream, Data Only: stored once with its candidates; the re-sent post is a duplicate', async (t) => {
  const body = JSON.stringify(fixture('stream-recognition.json'));
  t.match(await post(body), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match(await post(body), { status: 200, body: { accepted: 1, results: [{ status: 'duplicate' }] } }, 'Stream retries: same read');
  const stored = await rows();
  t.equal(stored.length, 1);
  t.match(stored[0], { plate_number: '9JUB11', camera_id: 'camera-1', full_image_hash: null });
  t.equal(stored[0]?.captured_at.toISOString(), '2021-09-29T05:56:13.606Z');
  t.same(stored[0]?.plate_candidates, [{ text: 'SJU88Y' }, { text: 'SJUBI' }], 'the other readings, the read itself left out');
  t.same(await verifyChain(db, hub.collectorId), { ok: true, count: 1 });
});

t.test('Snapshot names no camera: 400 until the URL does, then stored', async (t) => {
  const body = JSON.stringify(fixture('snapshot-image-done.json'));
  const anonymous = await post(body);
  t.equal(anonymous.status, 400, 'camera_id null and no ?camera=');
  t.match(anonymous.body.error?.message, /^plate_recognizer post names no camera: add \?camera=/);
  t.equal((await rows()).length, 1, 'nothing stored');
  t.match(await post(body, { camera: 'lobby-cloud' }), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match((await rows()).at(-1), { plate_number: 'P29VGF', camera_id: 'lobby-cloud', plate_candidates: null }, 'its one candidate is the read itself');
  t.equal((await rows()).at(-1)?.captured_at.toISOString(), '2025-05-30T13:59:09.481Z', 'the offset-less timestamp read as UTC');
});

t.test('Webhook with Image: the frame is stored as the scene and decodes', async (t) => {
  const snapshot = fixture('snapshot-image-done.json');
  const json = { ...snapshot, data: { ...snapshot.data, camera_id: 'yard', filename: 'yard.jpg', timestamp: '2025-06-01 08:00:00.000000' } };
  const frame = sceneJpeg('P29VGF', { seed: 7 });
  const multipart = encodeMultipart([
    { name: 'json', contentType: 'application/json', body: Buffer.from(JSON.stringify(json)) },
    { name: 'upload', contentType: 'image/jpeg', body: frame, filename: 'yard.jpg' },
  ]);
  t.match(await post(multipart.body, {}, multipart.contentType), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  const row = (await rows()).at(-1);
  t.match(row, { plate_number: 'P29VGF', camera_id: 'yard' });
  const hash = row?.full_image_hash;
  if (!hash) return t.fail('no scene stored');
  const bytes = await hub.deps.images.get(hash);
  t.same(bytes && Buffer.from(bytes), frame, 'the bytes posted');
  const decoded = jpeg.decode(Buffer.from(bytes ?? []), { maxMemoryUsageInMB: 64 });
  t.same([decoded.width, decoded.height], [640, 360], 'a picture that decodes');
});

t.test('no plate, other events: 200 and nothing stored', async (t) => {
  const before = (await rows()).length;
  const stream = fixture('stream-recognition.json');
  const empty = { ...stream, data: { ...stream.data, results: [] } };
  t.same(await post(JSON.stringify(empty)), { status: 200, body: { accepted: 0, results: [] } }, 'a frame without a plate');
  const other = { ...stream, hook: { ...stream.hook, event: 'video_file.done' } };
  t.same(await post(JSON.stringify(other)), { status: 200, body: { accepted: 0, results: [] } }, 'an event that is not a read');
  t.equal((await rows()).length, before);
});

t.test('hostile bodies: one-line 400, nothing written', async (t) => {
  const before = (await rows()).length;
  const stream = fixture('stream-recognition.json');
  const noJson = encodeMultipart([{ name: 'upload', contentType: 'image/jpeg', body: sceneJpeg('X1', { seed: 2 }) }]);
  for (const [what, body, type] of [
    ['not JSON', 'hook=recognition&plate=ab12', 'application/x-www-form-urlencoded'],
    ['results not a list', JSON.stringify({ ...stream, data: { ...stream.data, results: 'ab12' } }), 'application/json'],
    ['deep nesting', `${'['.repeat(40)}${']'.repeat(40)}`, 'application/json'],
    ['multipart without its json field', noJson.body, noJson.contentType],
    ['broken multipart', Buffer.from('--x\r\nno end'), 'multipart/form-data; boundary=x'],
  ] as const) {
    const res = await post(body, {}, type);
    t.equal(res.status, 400, what);
    t.match(res.body.error?.message, /^[^\n]+$/, `${what}: one line`);
  }
  t.equal((await rows()).length, before);
});

t.test('the hub key is required: the appliance push secret does not stand in for it', async (t) => {
  const body = JSON.stringify(fixture('stream-recognition.json'));
  for (const [what, url] of [
    ['no key', `${hub.url}${ingestPath('plate_recognizer')}`],
    ['an appliance ?secret=', `${hub.url}${ingestPath('plate_recognizer')}?secret=at-least-16-characters`],
    ['a wrong key', `${hub.url}${ingestPath('plate_recognizer')}?key=alpr_${'x'.repeat(40)}`],
  ] as const) {
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    t.equal(res.statusCode, 401, what);
    await res.body.dump();
  }
});
