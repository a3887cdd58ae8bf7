import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startVendorACamera } from '../../../../scripts/simulators/vendor-a-camera.ts';
import { createDigestClient } from './digest.ts';
import { ApplianceError, isTransient } from '../../errors.ts';

const PLATES = '/ISAPI/Traffic/channels/1/vehicleDetect/plates';
const afterTime = (cursor: string): string => `<AfterTime><picTime>${cursor}</picTime></AfterTime>`;

for (const algorithm of ['MD5', 'SHA-256'] as const) {
  t.test(`Digest ${algorithm} round trip against the vendor_a simulator`, async (t) => {
    const camera = await startVendorACamera({ algorithm, ratePerSecond: 0, password: 'Circle of Life', cropBytes: 2000, sceneBytes: 4000 });
    t.teardown(() => camera.close());
    camera.addReads(3);
    const client = createDigestClient({ username: 'admin', password: 'Circle of Life' });
    t.teardown(() => client.close());

    const first = await client.request({ method: 'POST', url: `${camera.url}${PLATES}`, body: afterTime('0'.repeat(18)) });
    t.equal(first.status, 200);
    t.match(first.body.toString(), /<Plates/);
    t.equal(camera.stats.unauthorized, 1, 'one challenge for the first request');

    // Nonce reuse: following requests go straight through with nc 2, 3, ...
    for (const entry of camera.produced) {
      const image = await client.request({ url: `${camera.url}/doc/ui/images/plate/${entry.picName}.jpg` });
      t.equal(image.status, 200);
      t.same(image.body, entry.read.crop, 'image bytes as produced');
    }
    t.equal(camera.stats.unauthorized, 1, 'no new handshake while the nonce is valid');
    t.equal(camera.stats.requests, 5);
  });
}

t.test('wrong password gets the 401 back, without a retry loop', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, password: 'right' });
  t.teardown(() => camera.close());
  const client = createDigestClient({ username: 'admin', password: 'wrong' });
  t.teardown(() => client.close());
  const res = await client.request({ method: 'POST', url: `${camera.url}${PLATES}`, body: afterTime('0') });
  t.equal(res.status, 401);
  t.equal(camera.stats.requests, 2, 'challenge + one answer, then give up');
  const again = await client.request({ method: 'POST', url: `${camera.url}${PLATES}`, body: afterTime('0') });
  t.equal(again.status, 401);
  t.equal(camera.stats.requests, 4, 'a bad answer is not cached as a reusable nonce');
});

t.test('stale nonce: the client answers the fresh challenge once and carries on', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, algorithm: 'SHA-256', nonceMaxUses: 2 });
  t.teardown(() => camera.close());
  const client = createDigestClient({ username: 'admin', password: 'admin12345' });
  t.teardown(() => client.close());
  for (let i = 0; i < 5; i++) {
    const res = await client.request({ url: `${camera.url}/ISAPI/System/deviceInfo` });
    t.equal(res.status, 200, `request ${i + 1}`);
  }
  t.ok(camera.stats.stale >= 1, 'the camera did flag stale nonces');
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
async function loopback(t: Test, handler: Handler): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

t.test('Basic when the camera offers only Basic', async (t) => {
  const seen: Array<string | undefined> = [];
  const url = await loopback(t, (req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization === `Basic ${Buffer.from('admin:pw').toString('base64')}`) res.end('ok');
    else {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="cam"' });
      res.end();
    }
  });
  const client = createDigestClient({ username: 'admin', password: 'pw' });
  t.teardown(() => client.close());
  t.equal((await client.request({ url })).body.toString(), 'ok');
  t.equal((await client.request({ url })).status, 200);
  t.same(
    seen.map((h) => h?.split(' ')[0]),
    [undefined, 'Basic', 'Basic'],
    'Basic is sent pre-emptively once known',
  );
  const wrong = createDigestClient({ username: 'admin', password: 'nope' });
  t.teardown(() => wrong.close());
  t.equal((await wrong.request({ url })).status, 401);
});

t.test('a 401 without a challenge we can answer is returned as is', async (t) => {
  const url = await loopback(t, (_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Digest realm="x", nonce="n", algorithm=SHA-1' });
    res.end();
  });
  const client = createDigestClient({ username: 'a', password: 'b' });
  t.teardown(() => client.close());
  t.equal((await client.request({ url })).status, 401);
});

t.test('body cap and timeouts surface as ApplianceError codes', async (t) => {
  const url = await loopback(t, (req, res) => {
    if (req.url === '/big') res.end(Buffer.alloc(64 * 1024));
    // any other path: never answer, so only the headers timeout can end the request
  });
  const capped = createDigestClient({ username: 'a', password: 'b', maxBodyBytes: 1024 });
  t.teardown(() => capped.close());
  const big = await capped.request({ url: `${url}/big` }).catch((e: unknown) => e);
  t.ok(big instanceof ApplianceError && big.code === 'body_too_large' && !isTransient(big), 'cap; not transient');
  const roomy = createDigestClient({ username: 'a', password: 'b', maxBodyBytes: 64 * 1024 });
  t.teardown(() => roomy.close());
  t.equal((await roomy.request({ url: `${url}/big` })).body.length, 64 * 1024, 'exactly at the cap is fine');

  const hasty = createDigestClient({ username: 'a', password: 'b', headersTimeoutMs: 50, bodyTimeoutMs: 50 });
  t.teardown(() => hasty.close());
  const err = await hasty.request({ url: `${url}/never` }).catch((e: unknown) => e);
  t.ok(err instanceof ApplianceError && err.code === 'timeout' && isTransient(err), 'headers timeout');

  // A port that was just released: nothing listens there any more.
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const address = gone.address();
  await new Promise((resolve) => gone.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no address');
  const refused = createDigestClient({ username: 'a', password: 'b' });
  t.teardown(() => refused.close());
  const down = await refused.request({ url: `http://127.0.0.1:${address.port}/` }).catch((e: unknown) => e);
  t.ok(down instanceof ApplianceError && down.code === 'connect_failed' && isTransient(down), 'connection refused');
});
