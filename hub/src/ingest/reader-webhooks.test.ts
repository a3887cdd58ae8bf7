/**
 * CodeProject.AI relays, the OpenALPR agent and the generic JSON posting straight to the hub's
 * camera webhook (docs/readers.md "Straight to the hub"). Real HTTP on loopback, the public
 * fixtures of the shared adapters, a real database: each read stored once (a re-sent post is a
 * duplicate), OpenALPR's candidates kept, posts without a plate answered 200, CodeProject.AI's
 * bare answer refused until the URL names the camera, hostile bodies a one-line 400, and a
 * watched plate from each reader raising its alert.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { alertRowsById } from '../alerts/payload.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { verifyChain } from '../db/chain.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { ingestPath } from '../platform/http/paths.ts';
import { createLog } from '../platform/log.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { startTestHub } from './uploads.test-helper.ts';

type Json = Record<string, unknown>;
const fixture = (folder: string, name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../../shared/src/adapters/${folder}/fixtures/${name}`, import.meta.url), 'utf8')) as Json;

interface Answer {
  status: number;
  body: { accepted?: number; results?: { status: string; reason?: string }[]; error?: { code: string; message: string } };
}

const db = await testDatabase(t);
// The generic fixtures are from 2026-11-27, the others older: a hub clock the day after takes all.
const hub = await startTestHub({ db, clock: { now: () => new Date('2026-11-28T00:00:00.000Z') } });
t.teardown(() => hub.close());

async function post(source: string, body: Json | string, query: Record<string, string> = {}): Promise<Answer> {
  const params = new URLSearchParams({ key: hub.apiKey, ...query });
  const res = await request(`${hub.url}${ingestPath(source)}?${params}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
}

type Row = {
  detection_id: string;
  plate_number: string;
  camera_id: string;
  captured_at: Date;
  plate_candidates: { text: string; confidence?: number }[] | null;
};
const rows = () => db.sql<Row>(`SELECT detection_id, plate_number, camera_id, captured_at, plate_candidates FROM detections ORDER BY chain_seq`);
const count = async () => (await rows()).length;

t.test('CodeProject.AI: the bare answer needs ?camera=; a relay naming its camera does not', async (t) => {
  const answer = fixture('codeproject-ai', 'alpr-response.json');
  const anonymous = await post('codeproject_ai', answer);
  t.equal(anonymous.status, 400, 'the answer names no camera');
  t.match(anonymous.body.error?.message, /^codeproject_ai post names no camera: add \?camera=/);
  t.equal(await count(), 0);

  t.match(await post('codeproject_ai', answer, { camera: 'driveway' }), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match(await post('codeproject_ai', answer, { camera: 'driveway' }), { status: 200, body: { results: [{ status: 'duplicate' }] } }, 'the relay re-sends it');
  const [first] = await rows();
  t.match(first, { plate_number: '7NCR867', camera_id: 'driveway', plate_candidates: null });
  t.equal(first?.captured_at.toISOString(), '2024-10-14T18:04:11.000Z', 'timestampUTC');

  const relay = fixture('codeproject-ai', 'blue-iris-ai-dump.json');
  t.match(await post('codeproject_ai', relay), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } }, 'ai_dump with a camera');
  t.match((await rows()).at(-1), { plate_number: 'JD6085B', camera_id: 'driveway' });
  t.same(await post('codeproject_ai', fixture('codeproject-ai', 'no-plate.json')), { status: 200, body: { accepted: 0, results: [] } }, 'no plate found');
  t.equal(await count(), 2);
});

t.test('OpenALPR: a plate group and per-frame results with candidates, heartbeats dropped', async (t) => {
  const before = await count();
  const group = fixture('openalpr', 'alpr-group.json');
  t.match(await post('openalpr', group), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match(await post('openalpr', group), { status: 200, body: { results: [{ status: 'duplicate' }] } }, 'the agent retries: best_uuid dedupes');
  t.match((await rows()).at(-1), {
    detection_id: 'openalpr:dimitar-video-cam1414799424-1448326208789',
    plate_number: 'A13709',
    camera_id: 'dimitar-video/1414799424',
  });

  const frame = fixture('openalpr', 'alpr-results.json');
  t.match(await post('openalpr', frame), { status: 200, body: { accepted: 2, results: [{ status: 'stored' }, { status: 'stored' }] } });
  const [a, b] = (await rows()).slice(-2);
  t.match(a, { plate_number: 'S11FRE', camera_id: 'headquarters/1' });
  t.same(a?.plate_candidates, [{ text: 'S11ERE', confidence: 0.755 }], 'the other reading, percent made 0..1');
  t.same(b?.plate_candidates, [{ text: 'EDLESSIE', confidence: 0.7761 }]);
  t.equal(b?.captured_at.toISOString(), '2014-06-07T16:20:50.000Z', "the result's own epoch_time");

  t.same(await post('openalpr', fixture('openalpr', 'heartbeat.json')), { status: 200, body: { accepted: 0, results: [] } }, 'a heartbeat');
  t.equal(await count(), before + 3);
  t.same(await verifyChain(db, hub.collectorId), { ok: true, count: before + 3 });
});

t.test('generic JSON: one read, a batch, a re-sent id', async (t) => {
  const before = await count();
  const one = fixture('generic-json', 'one-read.json');
  t.match(await post('generic_json', one), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } });
  t.match(await post('generic_json', one), { status: 200, body: { results: [{ status: 'duplicate' }] } });
  t.match((await rows()).at(-1), { detection_id: 'generic_json:ng-000123', plate_number: 'AB12CDE', camera_id: 'north-gate' });
  t.match(await post('generic_json', fixture('generic-json', 'batch.json')), { status: 200, body: { accepted: 2 } });
  t.same(
    (await rows()).slice(-2).map((r) => [r.plate_number, r.camera_id, r.captured_at.toISOString()]),
    [
      ['KX70ABC', 'north-gate', '2026-11-27T01:58:04.120Z'],
      ['LR19XYZ', 'south-gate', '2026-11-27T01:58:04.000Z'],
    ],
  );
  t.equal(await count(), before + 3);
});

t.test('hostile bodies: one-line 400, nothing written', async (t) => {
  const before = await count();
  const one = fixture('generic-json', 'one-read.json');
  const frame = fixture('openalpr', 'alpr-results.json');
  for (const [what, source, body] of [
    ['generic: 51 reads', 'generic_json', { reads: Array.from({ length: 51 }, () => one) }],
    ['generic: a list', 'generic_json', JSON.stringify([one])],
    ['codeproject: no predictions', 'codeproject_ai', { success: true, moduleId: 'ALPR' }],
    ['codeproject: not an object', 'codeproject_ai', '[1,2,3]'],
    ['openalpr: results not a list', 'openalpr', { ...frame, results: {} }],
    ['openalpr: not JSON', 'openalpr', '{"data_type": "alpr_group",'],
    ['deep nesting', 'openalpr', `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`],
  ] as const) {
    const res = await post(source, body, { camera: 'hostile' });
    t.equal(res.status, 400, what);
    t.match(res.body.error?.message, /^[^\n]+$/, `${what}: one line`);
  }
  t.equal(await count(), before);
});

t.test('a readable post with a bad read: 200, the read refused by name, nothing stored', async (t) => {
  // The hub's webhook rule (docs/ingest.md): 400 only for a body it cannot read at all; a read
  // that fails its checks is reported `rejected`, since a retry would not go better.
  const before = await count();
  const one = fixture('generic-json', 'one-read.json');
  for (const [what, body, reason] of [
    ['no time', { ...one, id: 'bad-1', time: undefined }, /^read\.time: /],
    ['a time in 1970', { ...one, id: 'bad-2', time: 5 }, /^missing or absurd time/],
    ['NUL in the camera', { ...one, id: 'bad-3', camera: 'north\u0000gate' }, /^read\.camera: control characters/],
  ] as const) {
    t.match(await post('generic_json', body), { status: 200, body: { accepted: 0, results: [{ status: 'rejected', reason }] } }, what);
  }
  const frame = fixture('openalpr', 'alpr-results.json');
  const results = frame['results'] as Json[];
  const mixed = { ...frame, uuid: 'mixed-frame', results: [results[0], { ...results[1], epoch_time: -1 }] };
  t.match(
    await post('openalpr', mixed),
    { status: 200, body: { accepted: 1, results: [{ status: 'stored' }, { status: 'rejected', reason: /absurd time/ }] } },
    'the good read of a frame is kept, the bad one listed after it',
  );
  t.equal(await count(), before + 1);
});

t.test('the auto route: readers known by their envelope, the same camera rule', async (t) => {
  const group = fixture('openalpr', 'alpr-group.json');
  const renamed = { ...group, best_uuid: 'auto-route-1', best_plate_number: 'AUTO1' };
  t.match(await post('auto', renamed), { status: 200, body: { accepted: 1, results: [{ status: 'stored' }] } }, 'an OpenALPR group');
  t.match((await rows()).at(-1), { detection_id: 'openalpr:auto-route-1', plate_number: 'AUTO1' });
  const anonymous = await post('auto', fixture('codeproject-ai', 'alpr-response.json'));
  t.equal(anonymous.status, 400, 'a bare CodeProject.AI answer is still refused without ?camera=');
  t.match(anonymous.body.error?.message, /^codeproject_ai post names no camera/);
  t.equal((await post('auto', fixture('generic-json', 'one-read.json'))).status, 400, 'the generic JSON is never guessed: post to /ingest/generic_json');
});

t.test('watched plates from each reader raise their alert, candidates included', async (t) => {
  const ctx = { db, clock: movableClock(new Date('2026-11-28T00:00:00.000Z')), log: createLog('silent') };
  const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
  const list = await createWatchlist(ctx, actor, { name: 'Readers at the hub' });
  for (const plate of ['7NCR867', 'A13709', 'EJLESSIE', 'AB12CDE']) await addEntry(ctx, actor, list.id, { plate });
  const worker = createAlertWorker(ctx, createWatchlistCache(ctx));
  while ((await worker.runOnce()) > 0) {
    /* until the queue is empty */
  }
  const ids = await db.sql<{ id: string }>(`SELECT id::text AS id FROM alerts WHERE watchlist_id = $1::uuid`, [list.id]);
  const alerts = await alertRowsById(
    db,
    ids.map((r) => r.id),
  );
  t.same(
    alerts.map((a) => [a.plate_number, a.camera_id]).sort(),
    [
      ['7NCR867', 'driveway'],
      ['A13709', 'dimitar-video/1414799424'],
      ['AB12CDE', 'north-gate'],
      ['EJLESSIE', 'headquarters/1'],
    ],
    'one alert per watched read: CodeProject.AI, OpenALPR group and frame, generic JSON',
  );
  t.same(alerts.find((a) => a.plate_number === 'EJLESSIE')?.plate_candidates, [{ text: 'EDLESSIE', confidence: 0.7761 }], 'the alert carries the candidates');
});
