import t from 'tap';
import { detectAdapter } from '../factory.ts';
import { readerMac } from '../reader/common.ts';
import { assertRefused, fixtureBytes, hostileBodies, jsonInput } from '../reader/hostile.test-helper.ts';
import { openAlpr } from './index.ts';

const fixture = (name: string): Uint8Array => fixtureBytes(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string): string => new TextDecoder().decode(fixture(name));

t.test('the agent documentation payloads', async (t) => {
  const group = openAlpr.parse(jsonInput(fixture('alpr-group.json')), {});
  t.equal(group.failure, undefined);
  t.same(group.errors, []);
  t.match(group.detections[0]?.detection, {
    detection_id: 'openalpr:dimitar-video-cam1414799424-1448326208789',
    timestamp: '2015-11-24T00:50:08.789Z',
    camera: { id: 'dimitar-video/1414799424', mac: readerMac('openalpr', 'dimitar-video/1414799424') },
    plate: { text: 'A13709', confidence: 0.9208, region: 'mo' },
  });

  const results = openAlpr.parse(jsonInput(fixture('alpr-results.json')), {});
  t.same(
    results.detections.map((d) => [d.detection.plate.text, d.detection.timestamp]),
    [
      ['S11FRE', '2014-06-07T17:10:50.000Z'],
      ['EJLESSIE', '2014-06-07T16:20:50.000Z'],
    ],
    'epoch seconds, the frame time or a result its own',
  );
  t.match(openAlpr.parse(jsonInput(fixture('heartbeat.json')), {}), { detections: [], ignored: 1, failure: undefined }, 'a heartbeat holds no read');
  t.equal(detectAdapter(jsonInput(fixture('alpr-group.json')))?.type, 'openalpr');
  t.equal(detectAdapter(jsonInput(fixture('alpr-results.json'))), undefined, 'results without data_type are too plain for auto: named only');
});

t.test('broken groups', async (t) => {
  const group = JSON.parse(text('alpr-group.json')) as Record<string, unknown>;
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no epoch_start', { ...group, epoch_start: undefined }, /epoch_start/],
    ['epoch in the year 2286', { ...group, epoch_start: 9_999_999_999_999 }, /time/],
    ['epoch negative', { ...group, epoch_start: -5 }, /time/],
    ['a plate that is an object', { ...group, best_plate_number: { a: 1 } }, /best_plate_number/],
    ['an unknown data_type', { ...group, data_type: 'alpr_somethingelse' }, /data_type/],
  ];
  for (const [what, body, reason] of cases) {
    const outcome = openAlpr.parse(jsonInput(JSON.stringify(body)), {});
    t.equal(outcome.detections.length, 0, `${what}: not stored`);
    t.match(outcome.failure ?? outcome.errors[0]?.reason, reason, `${what}: said`);
  }
});

t.test('hostile bodies', async (t) => {
  for (const [what, input] of hostileBodies(text('alpr-group.json'))) assertRefused(t, openAlpr, what, input);
});
