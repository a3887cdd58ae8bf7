import t from 'tap';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { startSnapshotCamera } from '../../../../scripts/simulators/snapshot-camera.ts';
import { drawnPassages } from '../../../../scripts/simulators/snapshot-scenes.ts';
import { cameraConfigSchema } from '../config.ts';
import { looksLikeJpeg } from '../frame-pixels.ts';
import { openSnapshotSource } from '../snapshot-source.ts';
import { getCapabilities } from './soap.ts';
import { ONVIF_DEVICE_PATH } from './snapshot-uri.ts';

/**
 * The snapshot URL asked of the camera over ONVIF, against the simulated ordinary camera on
 * loopback (real SOAP, WS-Security tokens checked against the camera's clock, HTTP Digest on the
 * JPEG). The path the camera names is in no vendor list, so a frame proves ONVIF found it.
 */
const ONVIF_ONLY_PATH = '/onvif-http/snapshot';
const passages = drawnPassages(['ONV1F23'], 2);

const configFor = (port: number) =>
  cameraConfigSchema.parse({ id: 'onvif-cam', vendor: 'snapshot', mode: 'pull', host: '127.0.0.1', port, username: 'admin', password: 'admin12345' });

t.test('a camera two hours fast, naming its inside address: the snapshot URL comes from GetSnapshotUri', async (t) => {
  const camera = await startSnapshotCamera({
    manual: true,
    passages,
    path: ONVIF_ONLY_PATH,
    onvif: { clockOffsetMs: 2 * 3600_000, reportedHost: '192.168.1.64' },
  });
  t.teardown(() => camera.close());
  const source = openSnapshotSource(configFor(camera.port));
  t.teardown(() => source.close());
  const frame = await source.frame();
  t.ok(looksLikeJpeg(frame), 'a JPEG');
  t.equal(source.url(), `${camera.url}${ONVIF_ONLY_PATH}`, 'the camera-named path, at the address this device reached');
  t.same(
    camera.onvifCounts(),
    { calls: { GetSystemDateAndTime: 1, GetCapabilities: 1, GetProfiles: 1, GetSnapshotUri: 1 }, refused: 0 },
    'four calls, no token refused: the camera clock was used',
  );
  await source.frame();
  t.equal(camera.onvifCounts().calls['GetSnapshotUri'], 1, 'asked once; later frames go straight to the URL');
});

t.test('the camera checks the token against its own clock: a token made with this device time is refused', async (t) => {
  // What the first test relies on, shown to be checked: two hours off is outside the window.
  const camera = await startSnapshotCamera({ manual: true, passages, path: ONVIF_ONLY_PATH, onvif: { clockOffsetMs: 2 * 3600_000 } });
  t.teardown(() => camera.close());
  const post = async (created: Date): Promise<number> =>
    (
      await request(`${camera.url}${ONVIF_DEVICE_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/soap+xml' },
        body: getCapabilities({ username: 'admin', password: 'admin12345', nonce: randomBytes(16), created }),
      })
    ).statusCode;
  t.equal(await post(new Date()), 400, 'this device time: refused');
  t.equal(camera.onvifCounts().refused, 1);
  t.equal(await post(new Date(Date.now() + 2 * 3600_000)), 200, 'the camera time: answered');

  // And the source, on a device whose clock is 4 h behind the camera, still gets through.
  const skewed = openSnapshotSource(configFor(camera.port), () => Date.now() - 2 * 3600_000);
  t.teardown(() => skewed.close());
  t.ok(looksLikeJpeg(await skewed.frame()), 'the token carries the camera time whatever this clock says');
  t.equal(camera.onvifCounts().refused, 1, 'no more refusals');
});

t.test('a separate ONVIF user the appliance does not know: the vendor paths, and the reason kept', async (t) => {
  const onHikvisionPath = await startSnapshotCamera({ manual: true, passages, onvif: { username: 'onvif-user', password: 'other' } });
  t.teardown(() => onHikvisionPath.close());
  const source = openSnapshotSource(configFor(onHikvisionPath.port));
  t.teardown(() => source.close());
  t.ok(looksLikeJpeg(await source.frame()), 'the web login on the Hikvision path still gives frames');
  t.equal(source.url(), onHikvisionPath.snapshotUrl);
  t.equal(onHikvisionPath.onvifCounts().refused, 1, 'the ONVIF token was refused once');

  const nowhere = await startSnapshotCamera({ manual: true, passages, path: ONVIF_ONLY_PATH, onvif: { username: 'onvif-user', password: 'other' } });
  t.teardown(() => nowhere.close());
  const lost = openSnapshotSource(configFor(nowhere.port));
  t.teardown(() => lost.close());
  await t.rejects(
    lost.frame(),
    { message: /no snapshot URL answered with a JPEG; set snapshotUrl \(tried: ONVIF at .*SOAP fault Sender\/NotAuthorized/ },
    'the error names the ONVIF refusal',
  );
});

t.test('a camera without ONVIF: the vendor paths as before, the 404 named', async (t) => {
  const camera = await startSnapshotCamera({ manual: true, passages, path: '/cgi-bin/snapshot.cgi' });
  t.teardown(() => camera.close());
  const source = openSnapshotSource(configFor(camera.port));
  t.teardown(() => source.close());
  t.ok(looksLikeJpeg(await source.frame()));
  t.equal(source.url(), `${camera.url}/cgi-bin/snapshot.cgi`);
});

t.test('a snapshotUrl given: ONVIF is not asked', async (t) => {
  const camera = await startSnapshotCamera({ manual: true, passages, path: ONVIF_ONLY_PATH, onvif: {} });
  t.teardown(() => camera.close());
  const source = openSnapshotSource(cameraConfigSchema.parse({ ...configFor(camera.port), snapshotUrl: ONVIF_ONLY_PATH }));
  t.teardown(() => source.close());
  t.ok(looksLikeJpeg(await source.frame()));
  t.same(camera.onvifCounts().calls, {}, 'no ONVIF call');
});
