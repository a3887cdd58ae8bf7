import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import { createDigestClient } from '../../appliance/src/cameras/http/digest.ts';
import { sha256 } from './plates.ts';
import { startVendorACamera } from './vendor-a-camera.ts';
import type { VendorACameraOptions } from './vendor-a-camera.ts';

const PLATES = '/ISAPI/Traffic/channels/1/vehicleDetect/plates';
const tags = (xml: string, name: string): string[] => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1] ?? '');

async function cameraWithClient(t: Test, options: VendorACameraOptions) {
  const camera = await startVendorACamera({ ratePerSecond: 0, cropBytes: 500, sceneBytes: 900, ...options });
  t.teardown(() => camera.close());
  const client = createDigestClient({ username: 'admin', password: 'admin12345' });
  t.teardown(() => client.close());
  const pull = async (cursor: string): Promise<string> => {
    const res = await client.request({ method: 'POST', url: `${camera.url}${PLATES}`, body: `<AfterTime><picTime>${cursor}</picTime></AfterTime>` });
    t.equal(res.status, 200);
    return res.body.toString();
  };
  return { camera, client, pull };
}

t.test('pull returns only newer picNames, unordered, and records first hand-outs', async (t) => {
  const start = Date.UTC(2030, 0, 2, 3, 4, 5);
  let clock = start;
  const { camera, pull } = await cameraWithClient(t, { oldCopyRate: 0, timezone: 'Asia/Dubai', now: () => (clock += 1500) });
  camera.addReads(20);
  const all = camera.produced.map((e) => e.picName);
  const firstXml = await pull('202001301301320000');
  t.same(tags(firstXml, 'picName').sort(), [...all].sort(), 'everything after an old cursor');
  t.not(tags(firstXml, 'picName').join(), [...all].sort().join(), 'not in picName order');
  t.match(tags(firstXml, 'captureTime')[0], /^20300102T0704\d\d\+0400$/, 'local time with offset');
  t.equal(camera.delivered.length, 20);
  t.match(
    camera.delivered.find((d) => d.detectionId === all[0]),
    { detectionId: all[0], time: '2030-01-02T03:04:06.000Z', images: { plateCrop: sha256(camera.produced[0]?.read.crop ?? Buffer.alloc(0)) } },
  );

  const cursor = [...all].sort()[11] ?? '';
  const newer = tags(await pull(cursor), 'picName');
  t.same(newer.sort(), [...all].sort().slice(12), 'only picNames above the cursor');
  t.same(tags(await pull([...all].sort()[19] ?? ''), 'picName'), [], 'nothing new: empty <Plates>');
  t.equal(camera.delivered.length, 20, 'a read is delivered once');

  camera.addReads(1);
  t.same(tags(await pull(cursor), 'picName').length, 9, 'new reads show up for the next pull');
});

t.test('pull quirks: copies of old entries, paging, bad cursor', async (t) => {
  const { camera, client, pull } = await cameraWithClient(t, { oldCopyRate: 1, maxPlatesPerResponse: 5 });
  camera.addReads(8);
  const sorted = camera.produced.map((e) => e.picName).sort();
  const page = tags(await pull(sorted[1] ?? ''), 'picName');
  const fresh = page.filter((p) => p > (sorted[1] ?? ''));
  t.same(fresh.sort(), sorted.slice(2, 7), 'oldest five above the cursor');
  t.equal(page.length, 6, 'plus one old entry');
  t.ok(sorted.slice(0, 2).includes(page[5] ?? ''), 'the copy is an entry the client already had');
  const bad = await client.request({ method: 'POST', url: `${camera.url}${PLATES}`, body: '<AfterTime><picTime>soon</picTime></AfterTime>' });
  t.equal(bad.status, 400);
  const other = await client.request({ method: 'POST', url: `${camera.url}/ISAPI/Traffic/channels/2/vehicleDetect/plates`, body: '' });
  t.equal(other.status, 404, 'unknown channel');
});

t.test('images and the GET shape with inline base64', async (t) => {
  const { camera, client } = await cameraWithClient(t, {});
  camera.addReads(2);
  const [first] = camera.produced;
  const image = await client.request({ url: `${camera.url}/doc/ui/images/plate/${first?.picName}.jpg` });
  t.equal(image.headers['content-type'], 'image/jpeg');
  t.same(image.body, first?.read.crop);
  t.equal((await client.request({ url: `${camera.url}/doc/ui/images/plate/1.jpg` })).status, 404);
  const get = (await client.request({ url: `${camera.url}${PLATES}?picTime=${first?.picName}` })).body.toString();
  t.same(tags(get, 'picName'), [camera.produced[1]?.picName]);
  t.same(Buffer.from(tags(get, 'sceneImage')[0] ?? '', 'base64'), camera.produced[1]?.read.scene, 'inline scene');
  t.same(camera.delivered[0]?.images, {
    plateCrop: sha256(camera.produced[1]?.read.crop ?? Buffer.alloc(0)),
    fullScene: sha256(camera.produced[1]?.read.scene ?? Buffer.alloc(0)),
  });
  const info = (await client.request({ url: `${camera.url}/ISAPI/System/deviceInfo` })).body.toString();
  t.match(tags(info, 'macAddress')[0], /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
});

interface Received {
  contentType: string;
  body: Buffer;
}

async function receiver(t: Test, statusFor: (n: number) => number): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(statusFor(got.length));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}/ingest`, got };
}

/** Split a multipart body the way the capture shows it: CRLF, `--boundary`. */
function parts(body: Buffer): Array<{ head: string; data: Buffer }> {
  const out: Array<{ head: string; data: Buffer }> = [];
  const delimiter = Buffer.from('--boundary');
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length + 2, next - 2); // skip CRLF after delimiter and before next
    const split = part.indexOf('\r\n\r\n');
    out.push({ head: part.subarray(0, split).toString(), data: part.subarray(split + 4) });
    at = next;
  }
  return out;
}

t.test('push: multipart with CRLF parts, delivered only on 2xx', async (t) => {
  const rx = await receiver(t, () => 200);
  const camera = await startVendorACamera({
    mode: 'push',
    pushUrl: rx.url,
    ratePerSecond: 200,
    count: 6,
    cropBytes: 700,
    sceneBytes: 1500,
    emptyImageRate: 0.5,
    timezone: 'Europe/Paris',
  });
  t.teardown(() => camera.close());
  await camera.idle();
  t.equal(rx.got.length, 6);
  t.equal(camera.delivered.length, 6);
  let sawEmpty = false;
  rx.got.forEach((post, i) => {
    t.equal(post.contentType, 'multipart/form-data; boundary=boundary');
    const [xml, crop, scene] = parts(post.body);
    t.match(xml?.head, /name="anpr\.xml"; filename="anpr\.xml"/);
    const doc = xml?.data.toString() ?? '';
    t.equal(tags(doc, 'macAddress')[0], camera.mac);
    t.equal(tags(doc, 'UUID')[0], camera.delivered[i]?.detectionId);
    t.match(tags(doc, 'dateTime')[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0[12]:00$/);
    t.equal(Date.parse(tags(doc, 'dateTime')[0] ?? ''), Date.parse(camera.delivered[i]?.time ?? ''), 'delivered time is the UTC of dateTime');
    t.match(crop?.head, /name="licensePlatePicture\.jpg"[\s\S]*Content-ID: licensePlatePicture/);
    t.match(scene?.head, /name="detectionPicture\.jpg"/);
    for (const [part, key] of [
      [crop, 'plateCrop'],
      [scene, 'fullScene'],
    ] as const) {
      const data = part?.data ?? Buffer.alloc(0);
      t.match(part?.head, new RegExp(`Content-Length: ${data.length}\\r?$`, 'm'), 'Content-Length per part');
      if (data.length === 0) {
        sawEmpty = true;
        t.equal(camera.delivered[i]?.images[key], undefined, 'empty part: no image delivered');
      } else t.equal(camera.delivered[i]?.images[key], sha256(data));
    }
  });
  t.ok(sawEmpty, 'some image parts are empty, as captured');
});

t.test('push: retries a failed post, gives up after the retries', async (t) => {
  const flaky = await receiver(t, (n) => (n <= 2 ? 503 : 200));
  const camera = await startVendorACamera({ mode: 'push', pushUrl: flaky.url, pushFormat: 'xml', ratePerSecond: 0, pushRetryDelayMs: 1 });
  t.teardown(() => camera.close());
  camera.addReads(1);
  await camera.idle();
  t.equal(flaky.got.length, 3);
  t.equal(flaky.got[0]?.contentType, 'application/xml; charset="UTF-8"');
  t.same(
    flaky.got.map((g) => tags(g.body.toString(), 'activePostCount')[0]),
    ['1', '2', '3'],
    're-upload count',
  );
  t.equal(camera.delivered.length, 1);
  t.same(camera.delivered[0]?.images, {}, 'plain XML carries no image');

  const down = await receiver(t, () => 500);
  const doomed = await startVendorACamera({ mode: 'push', pushUrl: down.url, ratePerSecond: 0, pushRetries: 2, pushRetryDelayMs: 1 });
  t.teardown(() => doomed.close());
  doomed.addReads(1);
  await doomed.idle();
  t.equal(down.got.length, 3, 'first try + 2 retries');
  t.same(doomed.delivered, []);
  t.same(doomed.undelivered, [doomed.produced[0]?.uuid]);
});
