import t from 'tap';
import { detectAdapter } from '../factory.ts';
import { assertRefused, fixtureBytes, hostileBodies, jsonInput } from '../reader/hostile.test-helper.ts';
import { genericJson } from './index.ts';

const fixture = (name: string): Uint8Array => fixtureBytes(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string): string => new TextDecoder().decode(fixture(name));

t.test('one read and a batch', async (t) => {
  const one = genericJson.parse(jsonInput(fixture('one-read.json')), {});
  t.equal(one.failure, undefined);
  t.same(one.detections[0]?.detection, {
    detection_id: 'generic_json:ng-000123',
    timestamp: '2026-11-27T01:58:04.120Z',
    camera: { id: 'north-gate', mac: one.detections[0]?.detection.camera.mac },
    plate: { text: 'AB12CDE', confidence: 0.91, region: 'gb' },
    vehicle: { direction: 'entering', vehicle_type: 'van', color: 'white', brand: 'Ford', model: 'Transit' },
  });
  const batch = genericJson.parse(jsonInput(fixture('batch.json')), {});
  t.same(
    batch.detections.map((d) => [d.detection.camera.id, d.detection.plate.text, d.detection.timestamp]),
    [
      ['north-gate', 'KX70ABC', '2026-11-27T01:58:04.120Z'],
      ['south-gate', 'LR19XYZ', '2026-11-27T01:58:04.000Z'],
    ],
  );
  t.not(batch.detections[0]?.detection.camera.mac, batch.detections[1]?.detection.camera.mac, 'two cameras, two stand-in MACs');
  t.equal(detectAdapter(jsonInput(fixture('one-read.json'))), undefined, 'never guessed by auto');
});

t.test('missing or wrong fields: one clear reason each, nothing stored', async (t) => {
  const read = JSON.parse(text('one-read.json')) as Record<string, unknown>;
  const cases: Array<[string, unknown, RegExp]> = [
    ['no camera', { ...read, camera: undefined }, /read\.camera/],
    ['no plate', { ...read, plate: undefined }, /read\.plate/],
    ['no time', { ...read, time: undefined }, /read\.time/],
    ['a confidence of 93', { ...read, confidence: 93 }, /read\.confidence/],
    ['an id with a slash', { ...read, id: '../x' }, /read\.id/],
    ['year 3000', { ...read, time: '3000-01-01T00:00:00Z' }, /time/],
    ['epoch 0', { ...read, time: 0 }, /time/],
    ['a NUL in the camera', { ...read, camera: 'gate\u0000' }, /read\.camera: control characters/],
    ['an empty batch', { reads: [] }, /reads/],
    ['51 reads', { reads: Array.from({ length: 51 }, () => read) }, /reads/],
  ];
  for (const [what, body, reason] of cases) {
    const outcome = genericJson.parse(jsonInput(JSON.stringify(body)), {});
    t.equal(outcome.detections.length, 0, `${what}: not stored`);
    t.match(outcome.failure ?? outcome.errors[0]?.reason, reason, `${what}: ${outcome.failure ?? outcome.errors[0]?.reason}`);
  }
});

t.test('hostile bodies', async (t) => {
  for (const [what, input] of hostileBodies(text('one-read.json'))) assertRefused(t, genericJson, what, input);
});
