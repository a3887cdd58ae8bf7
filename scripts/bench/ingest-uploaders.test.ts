import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { runUploaders } from './uploaders-process.ts';

/**
 * The bench's collectors process (ingest-uploaders.ts, started as the bench starts it)
 * against a loopback server: every batch is posted once, to the batch route, with a
 * collector's key and a multipart body, and each answer is reported over IPC. Pacing and
 * latency accounting: paced-collectors.test.ts.
 */
t.test('every batch is posted once with a collector key, and each answer is reported', async (t) => {
  const seen: { url: string; key: string; type: string; bytes: number }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      seen.push({ url: `${req.method} ${req.url}`, key: String(req.headers['x-api-key']), type: String(req.headers['content-type']), bytes });
      const backpressure = seen.length === 3;
      res.writeHead(backpressure ? 202 : 201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(backpressure ? { accepted: 5, backpressure: { reason: 'queue_depth' } } : { accepted: 5 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const statuses: string[] = [];
  const upload = { url, keys: ['key-a', 'key-b'], batches: 10, batchSize: 5, withImages: true, cropBytes: 1024, sceneBytes: 4096 };
  await runUploaders(upload, (_latencyMs, status) => statuses.push(status));

  t.equal(seen.length, 10, 'ten batches posted');
  t.ok(
    seen.every((s) => s.url === 'POST /api/v1/detections/batch'),
    'to the batch route',
  );
  t.same(new Set(seen.map((s) => s.key)), new Set(['key-a', 'key-b']), 'by both collectors');
  t.ok(
    seen.every((s) => s.type.startsWith('multipart/form-data; boundary=')),
    'multipart bodies',
  );
  t.ok(
    seen.every((s) => s.bytes > 5 * (1024 + 4096)),
    'with five crops and scenes each',
  );
  t.same(
    statuses.filter((s) => s !== '201'),
    ['202 queue_depth'],
    'each answer reported, backpressure by its reason',
  );
  t.equal(statuses.length, 10);
});
