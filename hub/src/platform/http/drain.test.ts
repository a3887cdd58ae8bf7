/**
 * The graceful stop (drain.ts) over real HTTP on loopback with a kept-alive client, as a
 * collector's uplink holds one: a request in hand when the stop begins is answered by the
 * app; a request that arrives on an open connection afterwards gets a 503 that closes the
 * connection and asks for a retry; the drain resolves only when no request is left.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { Agent, request } from 'undici';
import { drainable } from './drain.ts';

async function listening(fetch: (request: Request) => Response | Promise<Response>): Promise<{ server: Server; base: string }> {
  const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

t.test('a request in hand when the drain begins is answered before the drain ends', async (t) => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let answered = 0;
  const http = drainable(async (req: Request) => {
    if (new URL(req.url).pathname === '/slow') await held;
    answered += 1;
    return new Response('ok');
  });
  const { server, base } = await listening(http.fetch);
  const agent = new Agent({ connections: 1, pipelining: 1 });
  t.teardown(() => agent.close());

  const warm = await request(`${base}/fast`, { dispatcher: agent });
  t.equal(warm.statusCode, 200, 'before the stop: answered');
  await warm.body.text();

  const slow = request(`${base}/slow`, { dispatcher: agent });
  while (answered < 1) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  let drainedAt = 0;
  const drain = http.drain(server, 5_000).then((how) => {
    drainedAt = Date.now();
    return how;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(drainedAt, 0, 'the drain waits while a request is in hand');
  const releasedAt = Date.now();
  release();
  const slowAnswer = await slow;
  t.equal(slowAnswer.statusCode, 200, 'the request in hand when the stop began is answered by the app');
  t.equal(await slowAnswer.body.text(), 'ok');
  t.equal(await drain, 'drained', 'the drain ends without cutting anything');
  t.ok(drainedAt >= releasedAt, 'and only after the request in hand was answered');
});

t.test('a request still arriving when the drain begins gets a 503 with Connection: close', async (t) => {
  let started = 0;
  const http = drainable(() => {
    started += 1;
    return new Response('ok');
  });
  const { server } = await listening(http.fetch);
  // A raw connection in the middle of sending its request headers is not idle, so the drain
  // keeps it; the request completes after the stop began (as one on a balancer's pooled
  // connection does) and must not reach the app, whose database is about to close.
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write('POST /api/v1/detections/batch HTTP/1.1\r\nHost: hub\r\nContent-Length: 0\r\n');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const drain = http.drain(server, 5_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write('\r\n');
  await ended;
  t.match(answer, /^HTTP\/1\.1 503 /, 'the late request is answered 503');
  t.match(answer, /\r\nconnection: close\r\n/i, 'its connection is closed, so the retry goes elsewhere');
  t.match(answer, /\r\nretry-after: 1\r\n/i);
  t.match(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { error: { code: 'unavailable' } });
  t.equal(started, 0, 'the app never saw it');
  t.equal(await drain, 'drained');
});

t.test('a request that never ends is cut at the timeout', async (t) => {
  const http = drainable(() => new Promise<Response>(() => undefined));
  const { server, base } = await listening(http.fetch);
  const agent = new Agent({ connections: 1 });
  t.teardown(() => agent.close());
  const stuck = request(`${base}/never`, { dispatcher: agent }).catch((err: unknown) => err);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(await http.drain(server, 300), 'timed_out', 'the drain gives up after its timeout');
  t.ok((await stuck) instanceof Error, 'the stuck request was cut');
});
