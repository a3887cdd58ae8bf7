import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBearerClient } from './http/bearer.ts';
import { VENDOR_A_IMAGE_POLICY, fetchImage } from './images.ts';
import type { ImageFetchPolicy } from './images.ts';
import { realSleep, systemClock, type Clock, type Sleep } from './ports.ts';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

/** Answers the n-th request to any path with `script[n]` (the last entry repeats). */
async function scripted(t: Test, script: Array<{ status: number; headers?: Record<string, string>; body?: Buffer }>) {
  let requests = 0;
  const server = createServer((req, res) => {
    const step = script[Math.min(requests, script.length - 1)] ?? { status: 500 };
    requests += 1;
    res.writeHead(step.status, { 'content-type': step.status === 200 ? 'image/jpeg' : 'text/plain', ...step.headers });
    res.end(step.body ?? (step.status === 200 ? JPEG : 'no'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requests: () => requests };
}

const thumbnails: ImageFetchPolicy = { transientRetries: 1, transientRetryDelayMs: 5, notFoundWaitMs: 2_000, notFoundRetryMs: 10 };

async function get(t: Test, base: string, policy: ImageFetchPolicy, time: { clock: Clock; sleep: Sleep } = { clock: systemClock, sleep: realSleep }) {
  const client = createBearerClient({ token: 'x', headersTimeoutMs: 1000, bodyTimeoutMs: 1000 });
  t.teardown(() => client.close());
  return fetchImage((p) => client.request({ url: `${base}${p}` }), '/img', policy, {
    ...time,
    signal: new AbortController().signal,
  });
}

/** Time that moves only by the fetcher's own sleeps: a loaded machine cannot change the count. */
function virtualTime(): { clock: Clock; sleep: Sleep } {
  let now = 0;
  return {
    clock: { now: () => now },
    sleep: async (ms) => {
      now += ms;
    },
  };
}

t.test('vendor_b thumbnail: 404 until the event ended, then the image', async (t) => {
  const srv = await scripted(t, [{ status: 404 }, { status: 404 }, { status: 404 }, { status: 200 }]);
  const result = await get(t, srv.base, thumbnails);
  t.ok(result.ok);
  if (result.ok) t.same(Buffer.from(result.bytes), JPEG);
  t.equal(srv.requests(), 4);
});

t.test('a 404 that never ends gives up after the wait window', async (t) => {
  const srv = await scripted(t, [{ status: 404 }]);
  const result = await get(t, srv.base, { ...thumbnails, notFoundWaitMs: 100, notFoundRetryMs: 20 }, virtualTime());
  t.notOk(result.ok);
  if (!result.ok) t.equal(result.reason, 'HTTP 404');
  t.equal(srv.requests(), 6, 'asked at 0, 20, 40, 60, 80 and 100 ms of the window, then given up');
});

t.test('429 is backed off per Retry-After and counted', async (t) => {
  const srv = await scripted(t, [{ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } }, { status: 200 }]);
  const result = await get(t, srv.base, thumbnails);
  t.ok(result.ok);
  t.equal(result.rateLimited, 2);
});

t.test('vendor_a policy: one retry on 5xx, none on 404, one on a network error', async (t) => {
  const flaky = await scripted(t, [{ status: 503 }, { status: 200 }]);
  t.ok((await get(t, flaky.base, VENDOR_A_IMAGE_POLICY)).ok, '5xx then 200');
  t.equal(flaky.requests(), 2);

  const broken = await scripted(t, [{ status: 500 }]);
  t.notOk((await get(t, broken.base, VENDOR_A_IMAGE_POLICY)).ok);
  t.equal(broken.requests(), 2, 'exactly one retry');

  const missing = await scripted(t, [{ status: 404 }]);
  t.notOk((await get(t, missing.base, VENDOR_A_IMAGE_POLICY)).ok);
  t.equal(missing.requests(), 1, 'a 404 is final for vendor_a');

  const refused = await get(t, 'http://127.0.0.1:1', VENDOR_A_IMAGE_POLICY);
  t.notOk(refused.ok);
  if (!refused.ok) t.match(refused.reason, /ECONNREFUSED|cannot reach/);

  const empty = await scripted(t, [{ status: 200, body: Buffer.alloc(0) }]);
  const none = await get(t, empty.base, VENDOR_A_IMAGE_POLICY);
  t.notOk(none.ok, 'an empty 200 is no image');
  t.equal(empty.requests(), 1, 'and not retried');
});
