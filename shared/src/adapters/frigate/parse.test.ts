import t from 'tap';
import { detectAdapter } from '../factory.ts';
import { assertRefused, fixtureBytes, hostileBodies, jsonInput } from '../reader/hostile.test-helper.ts';
import { createFrigateDeduper } from './dedupe.ts';
import { frigate } from './index.ts';

const fixture = (name: string): Uint8Array => fixtureBytes(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string): string => new TextDecoder().decode(fixture(name));
const event = (name: string): Record<string, unknown> & { after: Record<string, unknown> } =>
  JSON.parse(text(name)) as Record<string, unknown> & { after: Record<string, unknown> };

t.test('Frigate 0.16: recognized_license_plate, one read with the snapshot to fetch', async (t) => {
  const outcome = frigate.parse(jsonInput(fixture('event-update-lpr.json')), {});
  t.equal(outcome.failure, undefined);
  const read = outcome.detections[0];
  t.same(read?.detection, {
    detection_id: 'frigate:1607123955.475377-mxklsc:ABC12345',
    timestamp: '2020-12-04T23:19:22.082Z',
    camera: { id: 'driveway', mac: read?.detection.camera.mac },
    plate: { text: 'ABC12345', confidence: 0.933451 },
    vehicle: { direction: 'unknown' },
  });
  t.same(read?.fetchImages, [{ kind: 'full_scene', path: '/api/events/1607123955.475377-mxklsc/snapshot.jpg' }]);
  t.equal(detectAdapter(jsonInput(fixture('event-update-lpr.json'))), undefined, 'never guessed by auto');
});

t.test('older setups: the plate as a vehicle sub label', async (t) => {
  const outcome = frigate.parse(jsonInput(fixture('event-end-sub-label.json')), { camera: { id: 'gate' } });
  t.same(
    outcome.detections.map((d) => [d.detection.detection_id, d.detection.camera.id, d.detection.plate.text, d.detection.plate.confidence]),
    [['frigate:1697301230.114873-4qm2bd:KX70ABC', 'gate', 'KX70ABC', 0.91]],
  );
  const stringSub = event('event-end-sub-label.json');
  stringSub.after = { ...stringSub.after, sub_label: 'KX70 ABC' };
  t.equal(frigate.parse(jsonInput(JSON.stringify(stringSub)), {}).detections[0]?.detection.plate.text, 'KX70ABC', 'a string sub label (up to 0.13)');
});

t.test('no plate: ignored, not an error', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['a person', event('event-person.json')],
    [
      'a car with no plate yet',
      { ...event('event-update-lpr.json'), after: { ...event('event-update-lpr.json').after, recognized_license_plate: null, sub_label: null } },
    ],
    ['an owner name as sub label', { ...event('event-update-lpr.json'), after: { ...event('event-update-lpr.json').after, recognized_license_plate: null } }],
    ['a face name on a person', { ...event('event-person.json'), after: { ...event('event-person.json').after, sub_label: ['BOB', 0.9] } }],
    ['a false positive', { ...event('event-update-lpr.json'), after: { ...event('event-update-lpr.json').after, false_positive: true } }],
  ];
  for (const [what, body] of cases) {
    const outcome = frigate.parse(jsonInput(JSON.stringify(body)), {});
    t.equal(outcome.detections.length, 0, `${what}: no read`);
    t.equal(outcome.ignored, 1, `${what}: ignored`);
    t.equal(outcome.failure, undefined);
  }
});

t.test('the same plate in every update is one key; a corrected plate is another', async (t) => {
  const dedupe = createFrigateDeduper(3);
  const base = event('event-update-lpr.json');
  const keys = ['ABC12345', 'ABC12345', 'ABC 12345', 'ABC12346'].map(
    (plate) =>
      frigate.parse(jsonInput(JSON.stringify({ ...base, after: { ...base.after, recognized_license_plate: plate } })), {}).detections[0]?.detection
        .detection_id ?? '',
  );
  const fresh = keys.filter((key) => {
    if (dedupe.seen(key)) return false;
    dedupe.remember(key);
    return true;
  });
  t.same(fresh, ['frigate:1607123955.475377-mxklsc:ABC12345', 'frigate:1607123955.475377-mxklsc:ABC12346']);
  for (const k of ['a', 'b', 'c']) dedupe.remember(k);
  t.equal(dedupe.size, 3, 'bounded');
  t.notOk(dedupe.seen(fresh[0] ?? ''), 'the oldest key is forgotten first');
});

t.test('broken and hostile messages', async (t) => {
  const base = event('event-update-lpr.json');
  const cases: Array<[string, unknown, RegExp]> = [
    ['no after', { type: 'update' }, /event\.after/],
    ['an unknown type', { ...base, type: 'delete' }, /event\.type/],
    ['an id with a slash', { ...base, after: { ...base.after, id: '../../x' } }, /event\.after\.id/],
    ['year 3000', { ...base, after: { ...base.after, frame_time: 32503680000 } }, /time/],
  ];
  for (const [what, body, reason] of cases) {
    const outcome = frigate.parse(jsonInput(JSON.stringify(body)), {});
    t.equal(outcome.detections.length, 0, `${what}: no read`);
    t.match(outcome.failure ?? outcome.errors[0]?.reason, reason, `${what}: ${outcome.failure ?? outcome.errors[0]?.reason}`);
  }
  for (const [what, input] of hostileBodies(text('event-update-lpr.json'))) assertRefused(t, frigate, what, input);
});
