import { fork } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { UploaderMessage, UploadRun } from './ingest-uploaders.ts';

/**
 * The bench's collectors (ingest-uploaders.ts) against a loopback server that answers every
 * batch after SERVICE_MS. Only lower bounds are asserted: a loaded machine makes every wait
 * longer, never shorter, so these cannot flake, and each would fail if the pacing or the
 * "latency from the due time" accounting were dropped.
 */
const SERVICE_MS = 50;

async function slowHub(t: Test): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${String(req.headers['x-api-key'])}`);
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted: 5 }));
      }, SERVICE_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function uploadRun(run: UploadRun): Promise<{ latencies: number[]; statuses: string[]; busySeconds: number }> {
  const child = fork(join(import.meta.dirname, 'ingest-uploaders.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const latencies: number[] = [];
  const statuses: string[] = [];
  const busySeconds = await new Promise<number>((resolve, reject) => {
    child.on('message', (message: UploaderMessage) => {
      if (message.kind === 'failed') reject(new Error(message.error));
      if (message.kind === 'done') resolve(message.busySeconds);
      if (message.kind === 'batch') {
        latencies.push(message.latencyMs);
        statuses.push(message.status);
      }
    });
    child.once('exit', (code) => reject(new Error(`uploader exited (${code}) before it was done`)));
    child.send(run);
  });
  return { latencies, statuses, busySeconds };
}

const base = { batches: 10, batchSize: 5, withImages: false, cropBytes: 0, sceneBytes: 0 };

t.test('flat out: every batch is posted once, with its collector key, and timed from its send', async (t) => {
  const hub = await slowHub(t);
  const { latencies, statuses, busySeconds } = await uploadRun({ ...base, url: hub.url, keys: ['key-a', 'key-b'] });
  t.equal(latencies.length, 10, 'an answer per batch');
  t.same(new Set(statuses), new Set(['201']));
  t.equal(hub.seen.length, 10);
  t.ok(hub.seen.every((line) => /^POST \/api\/v1\/detections\/batch key-[ab]$/.test(line)), 'the batch route, with a collector key');
  t.same(new Set(hub.seen.map((line) => line.split(' ')[2])), new Set(['key-a', 'key-b']), 'both collectors uploaded');
  t.ok(Math.min(...latencies) >= SERVICE_MS - 1, `no answer faster than the hub gives it (${Math.min(...latencies).toFixed(1)} ms)`);
  // Two collectors, 10 batches of 50 ms each: at least 5 rounds.
  t.ok(busySeconds >= (5 * SERVICE_MS) / 1000 - 0.01, `busy ${busySeconds.toFixed(3)} s`);
});

t.test('paced faster than the hub answers: waiting for a free collector counts in the latency', async (t) => {
  const hub = await slowHub(t);
  // 500 detections/s in batches of 5: one due every 10 ms; one collector answers one per 50 ms.
  const { latencies } = await uploadRun({ ...base, url: hub.url, keys: ['key-a'], ratePerSecond: 500 });
  t.equal(latencies.length, 10);
  // Batch i is sent no earlier than (i x 50 ms) and was due at i x 10 ms: it waited ~40 ms per
  // batch ahead of it. Timed from its send instead, every latency would be ~50 ms.
  for (const [i, latency] of latencies.entries()) {
    const floor = SERVICE_MS * (i + 1) - 10 * i - 2;
    if (latency < floor) t.fail(`batch ${i}: ${latency.toFixed(1)} ms, expected at least ${floor} ms (queueing not counted)`);
  }
  t.ok(latencies[9]! >= 400, `the last batch waited for the nine before it (${latencies[9]!.toFixed(1)} ms)`);
});

t.test('paced slower than the hub answers: batches are held until due', async (t) => {
  const hub = await slowHub(t);
  // 50 detections/s in batches of 5: one due every 100 ms, two collectors.
  const { latencies, busySeconds } = await uploadRun({ ...base, url: hub.url, keys: ['key-a', 'key-b'], ratePerSecond: 50 });
  t.equal(latencies.length, 10);
  // The tenth batch is due at 900 ms: flat out, two collectors would be done in ~250 ms.
  t.ok(busySeconds >= 0.9 + SERVICE_MS / 1000 - 0.01, `the run took ${busySeconds.toFixed(3)} s (paced)`);
  t.ok(Math.min(...latencies) >= SERVICE_MS - 1, 'each still takes the hub its time');
});
