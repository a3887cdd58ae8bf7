import t from 'tap';
import { prefill } from './discovery-section.ts';
import { createSocket } from 'node:dgram';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { createLanDiscovery } from '../discovery/lan-discovery.ts';
import { postForm, postJson, startSetup } from './setup.test-helper.ts';

/** "Find cameras" on the setup page, against the simulated camera's WS-Discovery on loopback. */

const camera = await startVendorACamera({ ratePerSecond: 0, wsDiscovery: true, username: 'admin', password: 'cam-Pa55' });
t.teardown(() => camera.close());
const target = { address: '127.0.0.1', port: camera.discovery?.port ?? 0 };

async function silentPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('Find cameras lists the camera with a prefilled add form, without JavaScript', async (t) => {
  let nowMs = 0;
  const setup = await startSetup(t, {
    discovery: createLanDiscovery({ now: () => nowMs, target, interfaces: () => ['127.0.0.1'], windowMs: 400 }),
  });
  const before = await (await fetch(`${setup.base}/`)).text();
  t.match(before, /<form method="post" action="\/setup\/discover"><button type="submit">Find cameras<\/button><\/form>/, 'a plain form button');
  t.notOk(before.includes('<script'), 'no script on the page');

  const res = await postForm(setup.base, '/setup/discover', {});
  t.equal(res.status, 200);
  const page = await res.text();
  t.match(page, /1 device\(s\) answered/);
  t.match(
    page,
    /<tr class="found"><td data-label="address">127\.0\.0\.1:\d+<\/td><td data-label="manufacturer">HIKVISION<\/td><td data-label="model">DS-2CD7A26G0\/P-IZHS<\/td>\s*<td data-label="already configured">no<\/td>/,
  );
  t.match(page, new RegExp(`<input name="host" type="text" value="127.0.0.1"`), 'host prefilled');
  t.match(page, new RegExp(`<input name="port" type="number" value="${camera.port}"`), 'port prefilled');
  t.match(page, /<option value="vendor_a" selected>/, 'vendor guessed from the manufacturer');

  // The installer submits the prefilled form (plus the password): the camera is added and now shows as configured.
  const add = await postForm(setup.base, '/setup/cameras', {
    id: 'cam-127-0-0-1',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '127.0.0.1',
    port: String(camera.port),
    username: 'admin',
    password: 'cam-Pa55',
  });
  t.equal(add.status, 303);
  const after = await (await fetch(`${setup.base}/`)).text();
  t.match(after, /<td data-label="already configured">yes \(<code>cam-127-0-0-1<\/code>\)<\/td>/, 'the last results mark the configured camera');

  const again = await postForm(setup.base, '/setup/discover', {});
  t.equal(again.status, 429, 'a second probe within 10 s is refused');
  t.equal(again.headers.get('retry-after'), '10');
  t.match(await again.text(), /try again in 10 s/);
  nowMs += 10_000;
  const json = await postJson(setup.base, '/setup/discover', {});
  t.equal(json.status, 200);
  const body = (await json.json()) as { interfaces: string[]; devices: Array<{ address: string; configured: string | null; manufacturer: string }> };
  t.same(body.interfaces, ['127.0.0.1']);
  t.match(body.devices, [{ address: '127.0.0.1', configured: 'cam-127-0-0-1', manufacturer: 'HIKVISION' }]);
});

t.test('nothing answers: the page says so with 200, not an error', async (t) => {
  const setup = await startSetup(t, {
    discovery: createLanDiscovery({ now: () => 0, target: { address: '127.0.0.1', port: await silentPort() }, interfaces: () => ['127.0.0.1'], windowMs: 200 }),
  });
  const res = await postForm(setup.base, '/setup/discover', {});
  t.equal(res.status, 200);
  const page = await res.text();
  t.match(page, /id="discovery-empty">No camera answered/);
  t.notOk(page.includes('class="error"'));
});

t.test('discovery is LAN-only, same-origin and gone after the claim', async (t) => {
  let probes = 0;
  const discovery = {
    run: async () => {
      probes += 1;
      return { ok: true as const, result: { devices: [], at: 0, interfaces: [] } };
    },
    last: () => undefined,
  };
  const outside = await startSetup(t, { discovery, addressOf: () => '203.0.113.9' });
  t.equal((await postForm(outside.base, '/setup/discover', {})).status, 403, 'from outside the LAN');
  const setup = await startSetup(t, { discovery });
  const crossSite = await fetch(`${setup.base}/setup/discover`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
    body: '',
  });
  t.equal(crossSite.status, 403, 'a form posted from another site');
  t.equal(probes, 0, 'neither sent a probe');
  setup.claimed.push({ collectorId: 'c', keyPrefix: 'k', hubUrl: 'http://h' } as never);
  t.equal((await postForm(setup.base, '/setup/discover', {})).status, 410);
  t.equal(probes, 0);
});

t.test('an ONVIF device that is not a Hikvision plate camera is prefilled as an ordinary camera', async (t) => {
  const axis = prefill({
    endpoint: 'urn:uuid:1',
    xaddrs: ['http://10.0.0.9:8080/onvif/device_service'],
    address: '10.0.0.9',
    port: 8080,
    manufacturer: 'AXIS',
    model: 'M3106',
  });
  t.match(
    axis,
    { vendor: 'snapshot', host: '10.0.0.9', port: '8080', mode: 'pull', name: 'AXIS M3106' },
    'host and port: its snapshot URL is asked over ONVIF',
  );
  t.equal(prefill({ endpoint: 'urn:uuid:2', xaddrs: [], address: '10.0.0.8', manufacturer: 'HIKVISION' }).vendor, 'vendor_a');
});
