/**
 * Issue 19 §4 / issue 10 §1: slow clients are cut off on both servers. Each server runs
 * with the same server options main.ts passes (`serverOptionsFor`),
 * scaled down so the test is short: a request head dribbled a byte at a time, a declared
 * body that trickles, and a connection that sends nothing are each closed (408 or plain
 * close) within their bound, while an ordinary client is served meanwhile.
 */
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { connect, type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { serverOptionsFor, type ServerTimeouts } from '@alpr/shared/http/timeouts';
import { createApplianceHttpApp } from '../../appliance/src/http/app.ts';
import { diagnosticsRoutes } from '../../appliance/src/diagnostics/routes.ts';
import { openTestBuffer } from '../../appliance/src/buffer/buffer.test-helper.ts';
import { authTestContext } from '../../hub/src/auth/auth.test-helper.ts';

const TIMEOUTS: ServerTimeouts = { headersMs: 1_000, requestMs: 2_000, keepAliveMs: 500 };
/**
 * Node checks the head and request bounds once a second (`connectionsCheckingInterval`),
 * so a connection may live up to one interval past its bound; 1.5 s more for a loaded CI.
 */
const SLACK_MS = 2_500;

async function listen(app: Hono): Promise<{ port: number; close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0, serverOptions: serverOptionsFor(TIMEOUTS) });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Opens a socket, sends `first`, then one byte of `rest` every `everyMs`; resolves when the server closes it. */
function slowClient(port: number, first: string, rest: string, everyMs: number): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(first);
      let i = 0;
      if (rest.length > 0) {
        timer = setInterval(() => {
          if (i < rest.length && !socket.destroyed) socket.write(rest[i++] as string);
        }, everyMs);
      }
    });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
  });
}

async function checkServer(t: Test, name: string, app: Hono, postPath: string) {
  const server = await listen(app);
  t.teardown(() => server.close());
  const head = `POST ${postPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
  const clients = Promise.all([
    // The head a byte every 200 ms: never complete within headersMs.
    slowClient(server.port, 'G', 'ET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 200),
    // A complete head, then a declared 100-byte body at a byte every 200 ms (20 s).
    slowClient(server.port, head, '{'.padEnd(100, ' '), 200),
    // A connection that never says anything.
    slowClient(server.port, '', '', 1_000),
  ]);
  // Meanwhile an ordinary client is served at once.
  const ok = await fetch(`http://127.0.0.1:${server.port}/healthz`);
  t.equal(ok.status, 200, `${name}: others are served while slow clients hang on`);
  const [slowHead, slowBody, silent] = await clients;
  t.ok(
    slowHead.closedAfterMs <= TIMEOUTS.headersMs + SLACK_MS,
    `${name}: dribbled head closed after ${slowHead.closedAfterMs} ms (bound ${TIMEOUTS.headersMs} ms)`,
  );
  t.match(slowHead.answer, /^$|^HTTP\/1\.1 408/, `${name}: 408 or a plain close for the head`);
  t.ok(
    slowBody.closedAfterMs <= TIMEOUTS.requestMs + SLACK_MS,
    `${name}: trickled body closed after ${slowBody.closedAfterMs} ms (bound ${TIMEOUTS.requestMs} ms)`,
  );
  t.notMatch(slowBody.answer, /^HTTP\/1\.1 [25]/, `${name}: the trickled body was never processed`);
  t.ok(silent.closedAfterMs <= TIMEOUTS.headersMs + SLACK_MS, `${name}: silent connection closed after ${silent.closedAfterMs} ms`);
  t.equal((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status, 200, `${name}: still healthy`);
}

t.test('hub: slow heads, trickled bodies and silent connections are cut off', async (t) => {
  const ctx = await authTestContext(t);
  await checkServer(t, 'hub', ctx.app, '/auth/login');
});

t.test('appliance: the same bounds on port 8080', async (t) => {
  const buffer = openTestBuffer((fn) => t.teardown(fn));
  const quiet = () => undefined;
  const app = createApplianceHttpApp({ info: quiet, error: quiet }, [
    diagnosticsRoutes({ buffer, hubUrl: () => undefined, apiKey: () => undefined, uplink: () => undefined, cameras: () => [], now: () => new Date() }),
  ]);
  await checkServer(t, 'appliance', app, '/setup/claim');
});
