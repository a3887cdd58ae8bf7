import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { EdgeBody } from './read-body.ts';
import { readIncomingBody } from './read-incoming.ts';

/** A real server on loopback whose handler reads the body with `readIncomingBody` under `max`. */
async function serverReading(
  t: Test,
  max: number,
  allocate?: (size: number) => Uint8Array<ArrayBuffer> | undefined,
): Promise<{ port: number; results: Promise<EdgeBody>[] }> {
  const results: Promise<EdgeBody>[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const result = readIncomingBody(req, max, allocate);
    results.push(result);
    void result.then((body) => {
      if (res.destroyed) return;
      res.writeHead(body.kind === 'ok' ? 200 : 413, body.kind === 'ok' ? {} : { connection: 'close' });
      res.end(body.kind === 'ok' ? String(body.bytes.byteLength) : body.kind);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, results };
}

function post(port: number, headers: Record<string, string>, write: (req: ReturnType<typeof request>) => void): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    write(req);
  });
}

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

t.test('a body with Content-Length arrives whole and in order, into one buffer', async (t) => {
  const { port, results } = await serverReading(t, 1_000_000);
  const parts = [bytes(300_000, 1), bytes(200_000, 2), bytes(5, 3)];
  const answer = await post(port, { 'content-length': '500005' }, (req) => {
    for (const p of parts) req.write(p);
    req.end();
  });
  t.same(answer, { status: 200, text: '500005' });
  const body = await results[0];
  t.equal(body?.kind, 'ok');
  if (body?.kind !== 'ok') return;
  t.same(Buffer.from(body.bytes), Buffer.concat(parts), 'every byte where it was sent');
  t.equal(body.bytes.byteOffset, 0, 'its own buffer, not a slice of a socket read');
});

t.test('a chunked body (no Content-Length) is joined; up to the cap exactly', async (t) => {
  const { port, results } = await serverReading(t, 1_000);
  const answer = await post(port, { 'transfer-encoding': 'chunked' }, (req) => {
    req.write(bytes(400, 7));
    req.end(bytes(600, 8));
  });
  t.same(answer, { status: 200, text: '1000' });
  const body = await results[0];
  if (body?.kind !== 'ok') return t.fail('not ok');
  t.equal(body.bytes[399], 7);
  t.equal(body.bytes[400], 8);
});

t.test('empty bodies', async (t) => {
  const { port } = await serverReading(t, 10);
  t.same(await post(port, { 'content-length': '0' }, (req) => req.end()), { status: 200, text: '0' });
});

t.test('over the cap: refused by Content-Length before reading, or as soon as a chunked body passes it', async (t) => {
  const { port, results } = await serverReading(t, 1_000);
  const declared = await post(port, { 'content-length': '5000' }, (req) => req.end(bytes(5_000, 1)));
  t.same(declared, { status: 413, text: 'too_large' });
  let written = 0;
  const chunked = await post(port, { 'transfer-encoding': 'chunked' }, (req) => {
    const more = (): void => {
      if (written >= 200_000 || req.destroyed) return void req.end();
      written += 600;
      if (req.write(bytes(600, 2))) setImmediate(more);
      else req.once('drain', more);
    };
    more();
  }).catch((error: unknown) => ({ status: -1, text: String(error) }));
  t.ok(chunked.status === 413 || chunked.status === -1, `413 or the connection closed (${chunked.status})`);
  t.same((await results[1])?.kind, 'too_large');
});

t.test('a client that goes away mid-body is `aborted`, not an exception', async (t) => {
  const { port, results } = await serverReading(t, 1_000_000);
  await post(port, { 'content-length': '100000' }, (req) => {
    req.write(bytes(10_000, 1));
    setTimeout(() => req.destroy(), 50);
  }).catch(() => undefined);
  for (let i = 0; i < 100 && results.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(await results[0], { kind: 'aborted' });
});

t.test('a given buffer receives the body; without one (undefined) a fresh one does', async (t) => {
  const reused = new ArrayBuffer(1 << 20);
  new Uint8Array(reused).fill(0xee);
  const asked: number[] = [];
  let give = true;
  const { port, results } = await serverReading(t, 1 << 20, (size) => {
    asked.push(size);
    return give ? new Uint8Array(reused, 0, size) : undefined;
  });
  const first = [bytes(70_000, 1), bytes(30_000, 2)];
  t.same(await post(port, { 'content-length': '100000' }, (req) => (first.forEach((p) => req.write(p)), req.end())), { status: 200, text: '100000' });
  const body = await results[0];
  if (body?.kind !== 'ok') throw new Error('expected a body');
  t.equal(body.bytes.buffer, reused, 'read into the buffer given');
  t.same(Buffer.from(body.bytes), Buffer.concat(first), 'exactly the bytes sent, none of what the buffer held before');

  give = false;
  t.same(await post(port, { 'content-length': '10' }, (req) => req.end(bytes(10, 5))), { status: 200, text: '10' });
  const second = await results[1];
  if (second?.kind !== 'ok') throw new Error('expected a body');
  t.not(second.bytes.buffer, reused, 'allocate declined: a fresh buffer');
  t.same(asked, [100_000, 10], 'asked once per body, for its declared length');
});
