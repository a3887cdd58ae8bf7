import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextBatch, markInFlight, markUploaded, readCounters } from '../buffer/index.ts';
import { countRows, openTestBuffer } from '../buffer/buffer.test-helper.ts';
import { cursorStoreFor, sinkFor } from '../wiring/buffer-ports.ts';
import { cameraConfigSchema } from './config.ts';
import { memoryDeps, until } from './memory.test-helper.ts';
import { startVendorAPull } from './vendor-a-pull.ts';

/**
 * Issue 17 item 1, through the real SQLite buffer: a vendor_a camera appends copies of old
 * entries to its pages. A copy of a read already delivered is neither fetched again nor
 * handed to the buffer, and is counted; an entry behind the cursor that was never
 * delivered (written late by the camera) still arrives.
 */

interface Entry {
  picName: string;
  time: string;
  plate: string;
}

const xmlOf = (e: Entry) =>
  `<Plate><captureTime>${e.time}</captureTime><plateNumber>${e.plate}</plateNumber><picName>${e.picName}</picName><direction>forward</direction></Plate>`;

/** Serves the entries after the cursor, then every entry of `appended` (old copies). */
async function camera(t: Test) {
  const state = { entries: [] as Entry[], appended: [] as Entry[], imageRequests: new Map<string, number>() };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.includes('/vehicleDetect/plates')) {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const cursor = BigInt(/<picTime>(\d+)<\/picTime>/.exec(body)?.[1] ?? '0');
        const page = [...state.entries.filter((e) => BigInt(e.picName) > cursor), ...state.appended];
        res.writeHead(200, { 'content-type': 'application/xml' }).end(`<Plates version="2.0">${page.map(xmlOf).join('')}</Plates>`);
      });
      return;
    }
    const image = /^\/doc\/ui\/images\/plate\/(\d+)\.jpg$/.exec(req.url ?? '');
    if (image?.[1]) {
      state.imageRequests.set(image[1], (state.imageRequests.get(image[1]) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(`jpeg of ${image[1]}`));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, state };
}

const config = (port: number) =>
  cameraConfigSchema.parse({
    id: 'gate-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '127.0.0.1',
    port,
    mac: '00:11:22:aa:bb:cc',
    username: 'admin',
    password: 'admin12345',
    timezone: 'Europe/Paris',
    pollIntervalMs: 20,
    initialBacklogMs: 0,
  });

// After the runner's initial cursor (now, real clock); the buffer's fake clock is set to
// the same day so the capture-age horizon sees fresh reads.
const A: Entry = { picName: '203001020304050100', time: '20300102T030405+0100', plate: 'BMK0477' };
const A2: Entry = { picName: '203001020304060100', time: '20300102T030406+0100', plate: 'BMK0477' };
const LATE: Entry = { picName: '203001020304070100', time: '20300102T030407+0100', plate: 'DJW9189' };
const B: Entry = { picName: '203001020304350100', time: '20300102T030435+0100', plate: 'ZZY941' };
const CAPTURED_MS = Date.parse('2030-01-02T02:04:05Z');

function uploadAll(buffer: ReturnType<typeof openTestBuffer>): string[] {
  const ids = nextBatch(buffer).map((r) => r.detection.detection_id);
  markInFlight(buffer, ids);
  markUploaded(buffer, ids);
  return ids;
}

t.test('old copies are skipped before their images are fetched; a late write behind the cursor still arrives', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  buffer.clock.set(CAPTURED_MS + 60_000);
  const cam = await camera(t);
  const deps = memoryDeps({ cursors: cursorStoreFor(buffer) });
  const runner = startVendorAPull(config(cam.port), { ...deps, sink: sinkFor(buffer, () => undefined) });
  t.teardown(() => runner.stop());

  // A and its re-read A2 (1 s later; pull entries carry no confidence, so the tie keeps A
  // and drops A2 by the 30 s window), then B.
  cam.state.entries.push(A, A2, B);
  t.ok(await until(() => countRows(buffer, 'recent_reads') === 3), 'first page delivered');
  t.same(uploadAll(buffer).sort(), [A.picName, B.picName], 'the hub gets A and B');

  // Eleven minutes later (past the old 10-minute memory) the camera appends old copies of
  // A2 (the dropped re-read) and A, and a read it wrote late, behind the cursor.
  buffer.clock.advance(11 * 60_000);
  cam.state.appended.push(A2, A, LATE);
  t.ok(await until(() => runner.status().counters.alreadyDelivered >= 2 * 3), 'several polls with old copies');
  await runner.stop();

  t.same(uploadAll(buffer), [LATE.picName], 'only the late write is new: no second detection of A');
  for (const e of [A, A2, LATE, B]) t.equal(cam.state.imageRequests.get(e.picName), 1, `image of ${e.plate} ${e.picName} fetched once`);
  const counters = readCounters(buffer);
  t.equal(counters.duplicate_id ?? 0, 0, 'no copy even reached the buffer insert');
  t.equal(countRows(buffer, 'detections'), 0);
});
