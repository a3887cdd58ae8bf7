import t from 'tap';
import { startSnapshotCamera } from '../../../scripts/simulators/snapshot-camera.ts';
import { drawnPassages } from '../../../scripts/simulators/snapshot-scenes.ts';
import type { FrameReader } from '../reader/types.ts';
import { sha256 } from '../cameras/memory.test-helper.ts';
import { postForm, postJson, startSetup } from './setup.test-helper.ts';

/**
 * An ordinary camera on the setup page: added with its snapshot URL (credentials to the vault),
 * and "Test" takes one frame behind Digest, reads it with the device's reader and shows it with
 * the plate box and the read. The reader here is written for the test (it knows the drawn
 * picture); the page with the real reader is test/e2e/setup-ordinary-camera.test.ts.
 */

const passages = drawnPassages(['SETUP12'], 5);
const camera = await startSnapshotCamera({ passages, manual: true, auth: 'digest', password: 'cam-Pa55-setup' });
t.teardown(() => camera.close());
camera.show(0);

const BOX = { x: 170, y: 240, width: 220, height: 52 };
const reader: FrameReader = {
  read: async (jpeg) =>
    sha256(jpeg) === sha256(passages[0]?.jpeg ?? Buffer.alloc(0))
      ? { plates: [{ plate: 'SETUP12', confidence: 0.91, box: BOX, candidates: [] }], width: 640, height: 360, ms: 12 }
      : { plates: [], width: 640, height: 360, ms: 12 },
  close: async () => undefined,
};

const ordinary = (fields: Record<string, string> = {}): Record<string, string> => ({
  id: 'gate-plain',
  vendor: 'snapshot',
  mode: 'pull',
  snapshot_url: camera.snapshotUrl,
  username: 'admin',
  password: 'cam-Pa55-setup',
  frames_per_second: '2',
  region: 'us',
  ...fields,
});

t.test('add an ordinary camera, test it: the frame, the plate box, the read', async (t) => {
  const setup = await startSetup(t, { reader });
  t.equal((await postForm(setup.base, '/setup/cameras', ordinary())).status, 303);
  const page = await (await fetch(`${setup.base}/`)).text();
  t.match(page, /<option value="snapshot" selected>|snapshot \/ pull/, 'listed as an ordinary camera');
  t.notMatch(page, /cam-Pa55-setup/, 'the password never comes back');

  const tested = await postJson(setup.base, '/setup/cameras/gate-plain/test', {});
  t.equal(tested.status, 200);
  const report = (await tested.json()) as { ok: boolean; summary: string; plates: { plate: string }[]; width: number };
  t.ok(report.ok, report.summary);
  t.match(report.summary, /SETUP12/);
  t.same(
    report.plates.map((p) => p.plate),
    ['SETUP12'],
  );
  const frame = await fetch(`${setup.base}/setup/cameras/gate-plain/frame.jpg`);
  t.equal(frame.status, 200);
  t.equal(frame.headers.get('content-type'), 'image/jpeg');
  t.equal(sha256(new Uint8Array(await frame.arrayBuffer())), sha256(passages[0]?.jpeg ?? Buffer.alloc(0)), 'the very frame the camera served');

  const shown = await (await postForm(setup.base, '/setup/cameras/gate-plain/test', {})).text();
  t.match(shown, /<svg viewBox="0 0 640 360"/, 'the frame drawn at its own size');
  t.match(shown, new RegExp(`<rect x="${BOX.x}" y="${BOX.y}" width="${BOX.width}" height="${BOX.height}"`), 'the plate box over it');
  t.match(shown, /<figcaption>Read: SETUP12<\/figcaption>/);
});

t.test('test of an ordinary camera that refuses the login, or has no reader', async (t) => {
  const setup = await startSetup(t, { reader });
  await postForm(setup.base, '/setup/cameras', ordinary({ id: 'wrong-login', password: 'not-the-password' }));
  const refused = (await (await postJson(setup.base, '/setup/cameras/wrong-login/test', {})).json()) as { ok: boolean; summary: string };
  t.notOk(refused.ok);
  t.match(refused.summary, /login refused/);
  t.equal((await fetch(`${setup.base}/setup/cameras/wrong-login/frame.jpg`)).status, 404, 'no frame to show');

  const bare = await startSetup(t);
  await postForm(bare.base, '/setup/cameras', ordinary());
  const noReader = (await (await postJson(bare.base, '/setup/cameras/gate-plain/test', {})).json()) as { ok: boolean; summary: string };
  t.notOk(noReader.ok);
  t.match(noReader.summary, /no plate reader/);
});

t.test('hostile or wrong input is refused with a 4xx', async (t) => {
  const setup = await startSetup(t, { reader });
  const hostile: Record<string, string>[] = [
    { snapshot_url: 'javascript:alert(1)' },
    { snapshot_url: 'file:///etc/passwd' },
    { rtsp_url: 'http://not-rtsp/' },
    { frames_per_second: '50' },
    { frames_per_second: '1e3' },
    { region: '<script>' },
    { mode: 'push' },
  ];
  for (const fields of hostile) {
    const res = await postJson(setup.base, '/setup/cameras', ordinary(fields));
    t.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(fields)}: ${res.status}`);
  }
  t.equal((await fetch(`${setup.base}/setup/cameras/nobody/frame.jpg`)).status, 404);
  t.equal((await fetch(`${setup.base}/setup/cameras/${'x'.repeat(300)}/frame.jpg`)).status, 404);
});
