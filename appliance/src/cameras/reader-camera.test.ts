import t from 'tap';
import { parseWith } from '@alpr/shared/adapters/factory';
import { readerMac } from '@alpr/shared/adapters/reader/common';
import { cameraConfigSchema } from './config.ts';
import { CAMERA_QUERY, readerCameraFor, readerContext } from './reader-camera.ts';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const cameras = [
  cameraConfigSchema.parse({ id: 'gate-pr', vendor: 'plate_recognizer', mode: 'push', cameraIds: ['camera-1'] }),
  cameraConfigSchema.parse({ id: 'north-gate', vendor: 'generic_json', mode: 'push', mac: '00:11:22:33:44:55', timezone: 'Europe/Paris' }),
  cameraConfigSchema.parse({ id: 'drive', vendor: 'codeproject_ai', mode: 'push' }),
];
const pr = enc({
  hook: { event: 'recognition' },
  data: { camera_id: 'camera-1', timestamp: '2026-11-27T01:00:00Z', results: [{ plate: 'ab123', score: 0.9 }] },
});

t.test('a reader post finds its entry by the reader camera name, cameraIds, or ?camera=', async (t) => {
  const first = parseWith('plate_recognizer', { body: pr }, {});
  t.equal(readerCameraFor('plate_recognizer', first, cameras, undefined)?.id, 'gate-pr', 'by cameraIds');
  t.equal(readerCameraFor('plate_recognizer', first, cameras, 'drive'), undefined, 'a ?camera= of another source type matches nothing');
  const generic = enc({ camera: 'north-gate', plate: 'XY1', time: '2026-11-27T02:00:00' });
  const g = parseWith('generic_json', { body: generic }, {});
  const entry = readerCameraFor('generic_json', g, cameras, undefined);
  t.equal(entry?.id, 'north-gate', 'by id');
  const again = parseWith('generic_json', { body: generic }, readerContext(entry, undefined));
  t.match(
    again.detections[0]?.detection,
    { camera: { id: 'north-gate', mac: '001122334455' }, timestamp: '2026-11-27T01:00:00.000Z' },
    'the entry gives MAC and zone',
  );
  const unknown = parseWith('generic_json', { body: enc({ camera: 'elsewhere', plate: 'XY1', time: 1795744684120 }) }, {});
  t.equal(readerCameraFor('generic_json', unknown, cameras, undefined), undefined, 'an unknown reader camera');
  t.equal(unknown.detections[0]?.detection.camera.mac, readerMac('generic_json', 'elsewhere'), 'keeps its stand-in MAC');
});

t.test('?camera= is checked before anything is read', async (t) => {
  for (const ok of ['drive', 'gate-1', 'a.b_c']) t.ok(CAMERA_QUERY.test(ok), ok);
  for (const bad of ['', 'a/b', 'x'.repeat(65), 'gate\u0000', '<script>']) t.notOk(CAMERA_QUERY.test(bad), JSON.stringify(bad));
});

t.test('reader entries are push only', async (t) => {
  const pull = cameraConfigSchema.safeParse({ id: 'x', vendor: 'openalpr', mode: 'pull', host: '10.0.0.2' });
  t.notOk(pull.success);
  t.match(pull.error?.issues[0]?.message, /plate reader.*push/);
});
