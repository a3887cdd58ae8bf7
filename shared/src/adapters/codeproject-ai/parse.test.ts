import t from 'tap';
import { detectAdapter } from '../factory.ts';
import { assertRefused, fixtureBytes, hostileBodies, jsonInput } from '../reader/hostile.test-helper.ts';
import { codeProjectAi } from './index.ts';
import { httpDate } from './parse.ts';

const fixture = (name: string): Uint8Array => fixtureBytes(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string): string => new TextDecoder().decode(fixture(name));

t.test('an answer of the ALPR module, bare and in an ai_dump', async (t) => {
  const bare = codeProjectAi.parse(jsonInput(fixture('alpr-response.json')), { camera: { id: 'drive' } });
  t.equal(bare.failure, undefined);
  t.match(bare.detections[0]?.detection, {
    timestamp: '2024-10-14T18:04:11.000Z',
    camera: { id: 'drive' },
    plate: { text: '7NCR867', confidence: 0.9412 },
  });
  const dump = codeProjectAi.parse(jsonInput(fixture('blue-iris-ai-dump.json')), {});
  t.match(dump.detections[0]?.detection, { camera: { id: 'driveway' }, plate: { text: 'JD6085B', confidence: 0.87 }, timestamp: '2024-10-14T18:04:11.000Z' });
  t.match(codeProjectAi.parse(jsonInput(fixture('no-plate.json')), {}), { detections: [], errors: [], ignored: 1, failure: undefined });
  t.equal(detectAdapter(jsonInput(fixture('alpr-response.json')))?.type, 'codeproject_ai');
  t.equal(detectAdapter(jsonInput(fixture('blue-iris-ai-dump.json')))?.type, 'codeproject_ai');
});

t.test('label only, failed answers, odd times', async (t) => {
  const answer = JSON.parse(text('alpr-response.json')) as Record<string, unknown>;
  const labelOnly = codeProjectAi.parse(jsonInput(JSON.stringify({ ...answer, predictions: [{ label: 'Plate: XY99Z', confidence: 0.5 }] })), {});
  t.equal(labelOnly.detections[0]?.detection.plate.text, 'XY99Z', 'older modules: the plate from the label');
  t.match(codeProjectAi.parse(jsonInput(JSON.stringify({ ...answer, success: false, predictions: [] })), {}), { detections: [], ignored: 1 });
  for (const [what, stamp] of [
    ['no time at all', undefined],
    ['an ISO time where an HTTP date belongs', '2024-10-14T18:04:11Z'],
    ['year 1900', 'Mon, 01 Jan 1900 00:00:00 GMT'],
    ['February 31', 'Mon, 31 Feb 2024 00:00:00 GMT'],
  ] as const) {
    const outcome = codeProjectAi.parse(jsonInput(JSON.stringify({ ...answer, timestampUTC: stamp })), {});
    t.equal(outcome.detections.length, 0, `${what}: not stored`);
    t.match(outcome.errors[0]?.reason, /time/, `${what}: said`);
  }
  t.match(codeProjectAi.parse(jsonInput('{"success":true}'), {}), { failure: /predictions/ }, 'no predictions: not an answer');
  t.equal(httpDate('Mon 14 Oct 2024 18:04:11 GMT')?.toISOString(), '2024-10-14T18:04:11.000Z', 'the form without a comma');
});

t.test('hostile bodies', async (t) => {
  for (const [what, input] of hostileBodies(text('alpr-response.json'))) assertRefused(t, codeProjectAi, what, input);
});
