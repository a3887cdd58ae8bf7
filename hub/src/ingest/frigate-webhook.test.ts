/**
 * Frigate events relayed to the hub's camera webhook (docs/readers.md "Frigate without an
 * appliance"): Frigate only publishes on MQTT, so a site without an appliance relays each
 * `frigate/events` message as it is (a Home Assistant automation, a Node-RED flow) to
 * `POST /api/v1/ingest/frigate`. Real HTTP on loopback, the public fixtures of the shared
 * adapter, a real database: one read per event and plate, no plate ignored, no image unless the
 * body carries one (the hub never calls Frigate's snapshot API).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { verifyChain } from '../db/chain.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { ingestPath } from '../platform/http/paths.ts';
import { startTestHub, type TestHub } from './uploads.test-helper.ts';

type FrigateEvent = { type: string; before: Record<string, unknown>; after: Record<string, unknown> };
const fixture = (name: string): FrigateEvent =>
  JSON.parse(readFileSync(new URL(`../../../shared/src/adapters/frigate/fixtures/${name}`, import.meta.url), 'utf8')) as FrigateEvent;

interface Answer {
  status: number;
  body: { accepted?: number; results?: { status: string; reason?: string }[]; error?: { code: string; message: string } };
}

const db = await testDatabase(t);
// The fixtures are from 2020 and 2023: any later hub clock takes them (only far-future reads
// are refused, docs/ingest.md).
const hub = await startTestHub({ db, clock: { now: () => new Date('2026-01-15T00:00:00.000Z') } });
t.teardown(() => hub.close());

async function relay(target: TestHub, body: string, query: Record<string, string> = {}, path = 'frigate'): Promise<Answer> {
  const params = new URLSearchParams({ key: target.apiKey, ...query });
  const res = await request(`${target.url}${ingestPath(path)}?${params}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
}

const rows = () =>
  db.sql<{ plate_number: string; camera_id: string; captured_at: Date; full_image_hash: string | null; crop_image_hash: string | null; detection_id: string }>(
    `SELECT plate_number, camera_id, captured_at, full_image_hash, crop_image_hash, detection_id FROM detections ORDER BY chain_seq`,
  );

t.test('a plate update, then the end of the same object: stored once, no image fetched', async (t) => {
  const update = fixture('event-update-lpr.json');
  const first = await relay(hub, JSON.stringify(update));
  t.match(first, { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  // Frigate's `end` repeats the object with a later frame and the same plate.
  const end = { ...update, type: 'end', after: { ...update.after, frame_time: Number(update.after['frame_time']) + 4.5, end_time: 1607123967.5 } };
  const last = await relay(hub, JSON.stringify(end));
  t.match(last, { status: 200, body: { accepted: 1, results: [{ status: 'duplicate' }] } }, 'the end of the event is the same read');
  const stored = await rows();
  t.equal(stored.length, 1, 'one detection for the object');
  t.match(stored[0], {
    plate_number: 'ABC12345',
    camera_id: 'driveway',
    full_image_hash: null,
    crop_image_hash: null,
  });
  t.equal(stored[0]?.captured_at.toISOString(), '2020-12-04T23:19:22.082Z', 'the frame_time of the first message with the plate (1607123962.082975)');
  t.same(await verifyChain(db, hub.collectorId), { ok: true, count: 1 });
});

t.test('an event without a plate is ignored, not an error', async (t) => {
  const before = (await rows()).length;
  t.same(await relay(hub, JSON.stringify(fixture('event-person.json'))), { status: 200, body: { accepted: 0, results: [] } }, 'a person');
  const update = fixture('event-update-lpr.json');
  const carNoPlate = { ...update, after: { ...update.after, id: '1607123999.1-noplate', recognized_license_plate: null, sub_label: null } };
  t.same(await relay(hub, JSON.stringify(carNoPlate)), { status: 200, body: { accepted: 0, results: [] } }, 'a car not read yet');
  const falsePositive = { ...update, after: { ...update.after, id: '1607123999.2-fp', false_positive: true } };
  t.same(await relay(hub, JSON.stringify(falsePositive)), { status: 200, body: { accepted: 0, results: [] } }, 'a false positive');
  t.equal((await rows()).length, before);
});

t.test('an older setup (plate in the sub label) and the camera named in the URL', async (t) => {
  const older = await relay(hub, JSON.stringify(fixture('event-end-sub-label.json')));
  t.match(older, { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match(
    (await rows()).at(-1),
    { plate_number: 'KX70ABC', camera_id: 'front_gate', full_image_hash: null },
    'the thumbnail in the body is not kept as an image',
  );
  const update = fixture('event-update-lpr.json');
  const renamed = { ...update, after: { ...update.after, id: '1607124100.3-gate', recognized_license_plate: 'GATE123' } };
  t.match(await relay(hub, JSON.stringify(renamed), { camera: 'south-gate' }), { status: 200, body: { accepted: 1 } });
  t.match((await rows()).at(-1), { plate_number: 'GATE123', camera_id: 'south-gate' }, '?camera= names the camera');
});

t.test('hostile and misdirected bodies: a clear 4xx, nothing stored', async (t) => {
  const before = (await rows()).length;
  for (const [what, body] of [
    ['not JSON', 'frigate/events {"type":"end"}'],
    ['no after', JSON.stringify({ type: 'end', before: {} })],
    ['an array', JSON.stringify([fixture('event-update-lpr.json')])],
  ] as const) {
    const res = await relay(hub, body);
    t.equal(res.status, 400, what);
    t.match(res.body.error?.message, /^[^\n]+$/, `${what}: one line`);
  }
  const update = fixture('event-update-lpr.json');
  const control = { ...update, after: { ...update.after, id: '1607124200.4-nul', camera: 'drive\u0000way' } };
  t.match(
    await relay(hub, JSON.stringify(control)),
    { status: 200, body: { accepted: 0, results: [{ status: 'rejected', reason: /^camera\.id: contains a NUL/ }] } },
    'a control character in the camera name: the read is refused by name (200 like every parsed webhook)',
  );
  const auto = await relay(hub, JSON.stringify(update), {}, 'auto');
  t.equal(auto.status, 400, 'the auto route does not guess Frigate: relay to /ingest/frigate');
  t.equal((await rows()).length, before);
});
