import t from 'tap';
import { detectAdapter } from '../factory.ts';
import { readerMac } from '../reader/common.ts';
import { assertRefused, fixtureBytes, hostileBodies, jsonInput } from '../reader/hostile.test-helper.ts';
import { plateRecognizer } from './index.ts';

// A two-part multipart/form-data body as Plate Recognizer's "Webhook with Image" sends it
// (built here: shared/ code and its tests import nothing outside shared/).
const MULTIPART_BOUNDARY = 'boundary';
function multipartBody(parts: readonly { name: string; contentType: string; body: Uint8Array }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head = `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.name}"\r\nContent-Type: ${part.contentType}\r\n\r\n`;
    chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${MULTIPART_BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const fixture = (name: string): Uint8Array => fixtureBytes(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string): string => new TextDecoder().decode(fixture(name));

t.test('the real Stream and Snapshot webhooks', async (t) => {
  const stream = plateRecognizer.parse(jsonInput(fixture('stream-recognition.json')), {});
  t.equal(stream.failure, undefined);
  t.match(stream.detections[0]?.detection, {
    timestamp: '2021-09-29T05:56:13.606Z',
    camera: { id: 'camera-1', mac: readerMac('plate_recognizer', 'camera-1') },
    plate: { text: '9JUB11', confidence: 0.839, region: 'gb' },
  });
  t.equal(stream.detections[0]?.detection.vehicle?.vehicle_type, undefined, '"Big Truck" is no class of ours: left out, not guessed');

  const snapshot = plateRecognizer.parse(jsonInput(fixture('snapshot-image-done.json')), {});
  t.match(snapshot.detections[0]?.detection, {
    timestamp: '2025-05-30T13:59:09.481Z',
    plate: { text: 'P29VGF', confidence: 1, region: 'ca-qc' },
    vehicle: { vehicle_type: 'car' },
  });
  t.equal(snapshot.detections[0]?.detection.camera.mac, readerMac('plate_recognizer', 'default'), 'Snapshot sends camera_id null');

  const configured = plateRecognizer.parse(jsonInput(fixture('stream-recognition.json')), { camera: { id: 'gate', mac: '0011223344AA' } });
  t.match(configured.detections[0]?.detection.camera, { id: 'gate', mac: '0011223344aa' }, 'a configured camera gives id and MAC');

  const again = plateRecognizer.parse(jsonInput(fixture('stream-recognition.json')), {});
  t.equal(again.detections[0]?.detection.detection_id, stream.detections[0]?.detection.detection_id, 'the same post twice: one dedupe key');

  t.equal(detectAdapter(jsonInput(fixture('stream-recognition.json')))?.type, 'plate_recognizer', 'auto routes it');
});

t.test('a "Webhook with Image" post carries the frame as the scene', async (t) => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
  const body = multipartBody([
    { name: 'json', contentType: 'application/json', body: Buffer.from(text('stream-recognition.json')) },
    { name: 'upload', contentType: 'image/jpeg', body: jpeg },
  ]);
  const outcome = plateRecognizer.parse({ body, contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}` }, {});
  t.equal(outcome.failure, undefined, outcome.failure ?? 'parsed');
  t.equal(outcome.detections.length, 1);
  t.same(outcome.detections[0]?.images.full_scene, jpeg);
});

t.test('events without reads, and reads without sense', async (t) => {
  const heartbeat = JSON.stringify({ hook: { event: 'heartbeat' }, data: { results: [] } });
  t.match(plateRecognizer.parse(jsonInput(heartbeat), {}), { detections: [], ignored: 1, failure: undefined });
  const post = JSON.parse(text('stream-recognition.json')) as { data: { timestamp: string; results: Array<Record<string, unknown>> } };
  for (const [what, timestamp] of [
    ['year 1970', '1970-01-01T00:00:00Z'],
    ['year 9999', '9999-12-31T23:59:59Z'],
    ['not a date', 'yesterday'],
  ] as const) {
    const outcome = plateRecognizer.parse(jsonInput(JSON.stringify({ ...post, data: { ...post.data, timestamp } })), {});
    t.equal(outcome.detections.length, 0, `${what}: not stored`);
    t.match(outcome.errors[0]?.reason, /time/, `${what}: said`);
  }
  const nul = plateRecognizer.parse(
    jsonInput(JSON.stringify({ ...post, data: { ...post.data, results: [{ ...post.data.results[0], plate: 'AB\u0000123' }] } })),
    {},
  );
  t.equal(nul.detections[0]?.detection.plate.text ?? 'none', 'AB123', 'a NUL inside the plate is stripped by plate normalization');
  t.match(
    plateRecognizer.parse(jsonInput(JSON.stringify({ ...post, data: { ...post.data, camera_id: 'camera\u00001' } })), {}),
    { detections: [], failure: /camera_id: control characters/ },
    'a NUL in the camera name: refused, not cleaned',
  );
  t.match(plateRecognizer.parse(jsonInput('{"hook":{"event":"recognition"}}'), {}), { failure: /data/ }, 'no data: a failure naming it');
  t.match(plateRecognizer.parse(jsonInput('{"data":{"results":"nope"}}'), {}), { failure: /results/ });
});

t.test('hostile bodies', async (t) => {
  for (const [what, input] of hostileBodies(text('stream-recognition.json'))) assertRefused(t, plateRecognizer, what, input);
});
