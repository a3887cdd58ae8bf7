/**
 * The camera's other readings kept at parsing (docs/protocol.md "plate.candidates"): the
 * sources that send them (Plate Recognizer, OpenALPR's daemon), from their documented
 * payloads, normalized like the plate, without the read itself, at most 10.
 */
import t from 'tap';
import { plateCandidates } from '../../detection/build.ts';
import { detectionSchema } from '../../detection/schema.ts';
import { openAlpr } from '../openalpr/index.ts';
import { plateRecognizer } from '../plate-recognizer/index.ts';
import { fixtureBytes, jsonInput } from './hostile.test-helper.ts';

const fixture = (dir: string, name: string): Uint8Array => fixtureBytes(new URL(`../${dir}/fixtures/${name}`, import.meta.url));

t.test('Plate Recognizer and OpenALPR candidates reach the detection', async (t) => {
  const pr = plateRecognizer.parse(jsonInput(fixture('plate-recognizer', 'stream-recognition.json')), {});
  const read = pr.detections[0]?.detection;
  t.equal(read?.plate.text, '9JUB11');
  t.same(read?.plate.candidates, [{ text: 'SJU88Y' }, { text: 'SJUBI' }], 'upper case, no score sent, the read itself left out');
  t.ok(detectionSchema.safeParse(read).success, 'still a valid wire detection');

  const alpr = openAlpr.parse(jsonInput(fixture('openalpr', 'alpr-results.json')), {});
  t.same(
    alpr.detections.map((d) => [d.detection.plate.text, d.detection.plate.candidates]),
    [
      ['S11FRE', [{ text: 'S11ERE', confidence: 0.755 }]],
      ['EJLESSIE', [{ text: 'EDLESSIE', confidence: 0.7761 }]],
    ],
    'confidence 0-100 scaled to 0..1',
  );
  const group = openAlpr.parse(jsonInput(fixture('openalpr', 'alpr-group.json')), {});
  t.equal(group.detections[0]?.detection.plate.candidates, undefined, 'a source that sends none: no field');
});

t.test('candidates are normalized, deduplicated and capped', async (t) => {
  t.same(
    plateCandidates('AB12CDE', [
      { text: 'ab-12 cde' },
      { text: 'AB12CDF', confidence: 0.5 },
      { text: 'ab12cdf' },
      { text: '' },
      { text: 42 },
      { text: 'unknown' },
    ]),
    [{ text: 'AB12CDF', confidence: 0.5 }],
  );
  const many = Array.from({ length: 30 }, (_, i) => ({ text: `X${i}` }));
  t.equal(plateCandidates('AB1', many).length, 10, 'at most 10');
});
