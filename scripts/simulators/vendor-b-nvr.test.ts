import t from 'tap';
import type { Test } from 'tap';
import { WebSocket } from 'ws';
import { frameJson, splitPacket } from '@alpr/shared/adapters/vendor-b/packet';
import { vendorB } from '@alpr/shared/adapters/vendor-b/index';
import type { CameraIdentity } from '@alpr/shared/adapters/types';
import { normalizedPlate, sha256 } from './plates.ts';
import { startVendorBNvr } from './vendor-b-nvr.ts';
import type { VendorBNvr, VendorBNvrOptions } from './vendor-b-nvr.ts';

const AUTH = { authorization: 'Bearer sim-token' };

async function nvrFor(t: Test, options: VendorBNvrOptions): Promise<VendorBNvr> {
  const nvr = await startVendorBNvr({ ratePerSecond: 0, motionRate: 0, cropBytes: 300, sceneBytes: 800, ...options });
  t.teardown(() => nvr.close());
  return nvr;
}

const get = async (nvr: VendorBNvr, path: string, headers: Record<string, string> = AUTH): Promise<Response> => fetch(`${nvr.url}${path}`, { headers });

/** Decode one packet with the shared frame reader (exact-length check included). */
function decode(packet: Buffer): { action: Record<string, unknown>; data: Record<string, unknown> } {
  const split = splitPacket(packet);
  if (!split.ok) throw new Error(split.reason);
  const action = frameJson(split.value.action);
  const data = frameJson(split.value.data);
  if (!action.ok || !data.ok) throw new Error('undecodable frame');
  return { action: action.value as Record<string, unknown>, data: data.value as Record<string, unknown> };
}

t.test('bootstrap: cameras with upper-case MACs, timezone, lastUpdateId', async (t) => {
  const nvr = await nvrFor(t, { cameraCount: 3, timezone: 'Europe/Berlin' });
  t.equal((await get(nvr, '/proxy/protect/api/bootstrap', {})).status, 401, 'no token');
  t.equal((await get(nvr, '/proxy/protect/api/bootstrap', { 'x-api-key': 'sim-token' })).status, 200, 'X-API-KEY');
  const body = (await (await get(nvr, '/proxy/protect/api/bootstrap')).json()) as {
    cameras: Array<{ id: string; mac: string; name: string }>;
    nvr: { timezone: string };
    lastUpdateId: string;
  };
  t.equal(body.cameras.length, 3);
  for (const c of body.cameras) {
    t.match(c.id, /^[0-9a-f]{24}$/);
    t.match(c.mac, /^[0-9A-F]{12}$/);
  }
  t.equal(body.nvr.timezone, 'Europe/Berlin');
  t.type(body.lastUpdateId, 'string');
});

t.test('events API: 400 rule, filters, both plate shapes', async (t) => {
  const nvr = await nvrFor(t, { plateDelayMs: 1, endDelayMs: 2, motionRate: 1, legacyRate: 0.5, unknownRate: 0 });
  nvr.addReads(10);
  await nvr.idle();
  t.equal((await get(nvr, '/proxy/protect/api/events?start=0')).status, 400, 'start without end or limit');
  t.equal((await get(nvr, '/proxy/protect/api/events?start=0&limit=3')).status, 200, 'start with limit');
  const all = (await (await get(nvr, '/proxy/protect/api/events?start=0&end=99999999999999&orderDirection=ASC')).json()) as Array<Record<string, unknown>>;
  t.equal(all.length, 20, '10 plate events + 10 motion events');
  t.ok(
    all.every((e, i) => i === 0 || (e.start as number) >= (all[i - 1]?.start as number)),
    'ASC order',
  );
  const plates = (await (
    await get(nvr, '/proxy/protect/api/events?start=0&end=99999999999999&types=smartDetectZone&types=smartDetectLine&smartDetectTypes=licensePlate')
  ).json()) as Array<{ id: string; end: number; camera: string; metadata: { licensePlate?: { name: string }; detectedThumbnails?: Array<{ name: string }> } }>;
  t.equal(plates.length, 10);
  t.same(new Set(plates.map((p) => p.id)), new Set(nvr.delivered.map((d) => d.detectionId)));
  const legacy = plates.filter((p) => p.metadata.licensePlate);
  const modern = plates.filter((p) => p.metadata.detectedThumbnails);
  t.ok(legacy.length > 0 && modern.length > 0, `both shapes (${legacy.length} legacy, ${modern.length} 6.x)`);
  for (const p of plates) {
    const d = nvr.delivered.find((x) => x.detectionId === p.id);
    const name = p.metadata.licensePlate?.name ?? p.metadata.detectedThumbnails?.[0]?.name;
    t.equal(name, d?.plate, 'plate as delivered');
    t.equal(nvr.cameras.find((c) => c.id === p.camera)?.mac, d?.mac, 'camera id maps to the delivered MAC');
  }
  const window = (await (await get(nvr, `/proxy/protect/api/events?start=${plates[0]?.end}&end=${plates[0]?.end}`)).json()) as unknown[];
  t.same(window, [], 'time filter applies to start');
});

t.test('thumbnails: 404 until the event ends, both paths, rate limited', async (t) => {
  let clock = 1_900_000_000_000;
  const nvr = await nvrFor(t, { plateDelayMs: 1, endDelayMs: 60_000, thumbnailRatePerSecond: 10, now: () => clock });
  nvr.addReads(1);
  const [id] = [...nvr.events.keys()];
  t.equal((await get(nvr, `/proxy/protect/api/events/${id}/thumbnail`)).status, 404, 'event still open');
  await nvr.close();

  const done = await nvrFor(t, { plateDelayMs: 1, endDelayMs: 2, now: () => clock });
  done.addReads(1);
  await done.idle();
  const read = done.delivered[0];
  const a = await get(done, `/proxy/protect/api/events/${read?.detectionId}/thumbnail`);
  t.equal(a.status, 200);
  t.equal(sha256(Buffer.from(await a.arrayBuffer())), read?.images.fullScene, 'thumbnail is the delivered image');
  const b = await get(done, `/proxy/protect/api/thumbnails/e-${read?.detectionId}`);
  t.equal(b.status, 200, 'pre-1.21 path with e- prefix');
  await b.arrayBuffer();
  // Frozen clock: 10 tokens in total, two spent above.
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await get(done, `/proxy/protect/api/events/${read?.detectionId}/thumbnail`);
    await res.arrayBuffer();
    statuses.push(res.status);
    if (res.status === 429) t.equal(res.headers.get('retry-after'), '1');
  }
  t.same(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
  clock += 1000;
  t.equal((await get(done, `/proxy/protect/api/events/${read?.detectionId}/thumbnail`)).status, 200, 'refilled after 1 s');
});

async function collect(url: string, headers: Record<string, string>): Promise<{ packets: Buffer[]; ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(`${url}/proxy/protect/ws/updates?lastUpdateId=x`, { headers });
  const packets: Buffer[] = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('message', (data: Buffer) => packets.push(data));
  return { packets, ws, closed };
}

t.test('WebSocket: add, plate update, end update; the vendor_b adapter reads them', async (t) => {
  const nvr = await nvrFor(t, { plateDelayMs: 5, endDelayMs: 10, legacyRate: 0, unknownRate: 0 });
  const rejected = new WebSocket(`${nvr.wsUrl}/proxy/protect/ws/updates`, { headers: { authorization: 'Bearer wrong' } });
  rejected.on('error', () => undefined); // the aborted handshake reports itself as an error too
  const status = await new Promise<number | undefined>((resolve) =>
    rejected.on('unexpected-response', (req, res) => {
      resolve(res.statusCode);
      req.destroy();
    }),
  );
  t.equal(status, 401);

  const { packets, ws } = await collect(nvr.wsUrl, AUTH);
  t.teardown(() => ws.terminate());
  nvr.addReads(1);
  await nvr.idle();
  while (packets.length < 3) await new Promise((r) => setTimeout(r, 5));
  for (const p of packets) t.same([...p.subarray(0, 4)], [1, 1, 1, 0], 'action header: JSON, deflated (as captured)');
  const [add, plate, end] = packets.map(decode);
  t.match(add?.action, { action: 'add', modelKey: 'event' });
  t.match(add?.data, { end: null, smartDetectTypes: ['vehicle'] });
  t.notOk(JSON.stringify(add?.data).includes('licensePlate'), 'no plate in the add');
  t.match(plate?.action, { action: 'update', id: add?.action.id });
  t.match(plate?.data, { smartDetectTypes: ['vehicle', 'licensePlate'], metadata: { detectedThumbnails: [{ name: nvr.delivered[0]?.plate }] } });
  t.notOk('camera' in (plate?.data ?? {}), 'updates carry no camera');
  t.match(end?.data, { end: Number });
  const bootstrap = (await (await get(nvr, '/proxy/protect/api/bootstrap')).json()) as { lastUpdateId: string };
  t.equal(bootstrap.lastUpdateId, end?.action.newUpdateId, 'bootstrap follows the update ids');

  const cameras = new Map<string, CameraIdentity>(nvr.cameras.map((c) => [c.id, { id: c.id, mac: c.mac, name: c.name }]));
  const stream = vendorB.openStream?.({ cameras });
  const detections = packets.flatMap((p) => stream?.push(p).detections ?? []);
  t.equal(detections.length, 1, 'the adapter emits one detection from the three packets');
  t.equal(detections[0]?.detection.plate.text, normalizedPlate(nvr.delivered[0]?.plate ?? ''));
});

t.test('abrupt drops; events made while disconnected come back through the API', async (t) => {
  const nvr = await nvrFor(t, { plateDelayMs: 2, endDelayMs: 4, dropEvery: 2, unknownRate: 0 });
  const first = await collect(nvr.wsUrl, { 'x-api-key': 'sim-token' });
  nvr.addReads(1);
  t.equal(await first.closed, 1006, 'terminated without a close frame');
  t.equal(nvr.drops, 1);
  nvr.addReads(2); // nobody listening
  await nvr.idle();
  const since = (await (await get(nvr, '/proxy/protect/api/events?start=0&end=99999999999999&smartDetectTypes=licensePlate')).json()) as Array<{
    id: string;
    end: number | null;
  }>;
  t.equal(since.length, 3);
  t.ok(
    since.every((e) => e.end !== null),
    'all ended',
  );
  t.same(new Set(since.map((e) => e.id)), new Set(nvr.delivered.map((d) => d.detectionId)));
});
