import t from 'tap';
import { startVendorBNvr } from '../../../../scripts/simulators/vendor-b-nvr.ts';
import { createBearerClient } from './bearer.ts';
import { ApplianceError } from '../../errors.ts';

const BOOTSTRAP = '/proxy/protect/api/bootstrap';

t.test('Bearer and X-API-KEY against the vendor_b simulator', async (t) => {
  const nvr = await startVendorBNvr({ ratePerSecond: 0, token: 'tok-123' });
  t.teardown(() => nvr.close());
  for (const header of ['bearer', 'x-api-key'] as const) {
    const client = createBearerClient({ token: 'tok-123', header });
    t.teardown(() => client.close());
    const res = await client.request({ url: `${nvr.url}${BOOTSTRAP}` });
    t.equal(res.status, 200, header);
    const body = JSON.parse(res.body.toString()) as { cameras: Array<{ mac: string }> };
    t.same(
      body.cameras.map((c) => c.mac),
      nvr.cameras.map((c) => c.mac),
      `${header}: bootstrap cameras`,
    );
  }
  t.same(createBearerClient({ token: 'x', header: 'x-api-key' }).authHeaders(), { 'x-api-key': 'x' });
  t.same(createBearerClient({ token: 'x' }).authHeaders(), { authorization: 'Bearer x' });
  const wrong = createBearerClient({ token: 'nope' });
  t.teardown(() => wrong.close());
  t.equal((await wrong.request({ url: `${nvr.url}${BOOTSTRAP}` })).status, 401, 'wrong token');
});

t.test('self-signed console: verification off by default, on when asked', async (t) => {
  const nvr = await startVendorBNvr({ ratePerSecond: 0, tls: true });
  t.teardown(() => nvr.close());
  t.match(nvr.url, /^https:/);
  const lenient = createBearerClient({ token: 'sim-token' });
  t.teardown(() => lenient.close());
  t.equal((await lenient.request({ url: `${nvr.url}${BOOTSTRAP}` })).status, 200, 'default skips verification');
  const strict = createBearerClient({ token: 'sim-token', rejectUnauthorized: true });
  t.teardown(() => strict.close());
  const err = await strict.request({ url: `${nvr.url}${BOOTSTRAP}` }).catch((e: unknown) => e);
  t.ok(err instanceof ApplianceError, 'strict client refuses the self-signed certificate');
});

t.test('body cap applies to thumbnails', async (t) => {
  const nvr = await startVendorBNvr({ ratePerSecond: 0, plateDelayMs: 1, endDelayMs: 2, sceneBytes: 50_000, motionRate: 0 });
  t.teardown(() => nvr.close());
  nvr.addReads(1);
  await nvr.idle();
  const id = nvr.delivered[0]?.detectionId ?? '';
  const small = createBearerClient({ token: 'sim-token', maxBodyBytes: 10_000 });
  t.teardown(() => small.close());
  const err = await small.request({ url: `${nvr.url}/proxy/protect/api/events/${id}/thumbnail` }).catch((e: unknown) => e);
  t.ok(err instanceof ApplianceError && err.code === 'body_too_large');
  const big = createBearerClient({ token: 'sim-token' });
  t.teardown(() => big.close());
  const ok = await big.request({ url: `${nvr.url}/proxy/protect/api/events/${id}/thumbnail` });
  t.equal(ok.status, 200);
  t.equal(ok.body[0], 0xff);
});
