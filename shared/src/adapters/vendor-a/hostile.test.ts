/**
 * Hostile payloads: the adapter must answer each with a failure or an error entry, never
 * throw. How long each takes is measured by `npm run bench` (scripts/bench/adapter-hostile.ts),
 * not asserted here: tests never assert wall-clock time.
 */
import t from 'tap';
import type { Test } from 'tap';
import type { ParseInput, ParseOutcome } from '../types.ts';
import { vendorA } from './index.ts';
import { hostileVendorAInputs, wideVendorAInputs } from './hostile-cases.test-helper.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const XML = 'application/xml';

function run(t: Test, label: string, input: ParseInput): ParseOutcome {
  let outcome: ParseOutcome = { detections: [], errors: [], ignored: 0, failure: 'did not run' };
  t.doesNotThrow(() => {
    vendorA.recognizes(input);
    outcome = vendorA.parse(input, { camera: { mac: '001122aabbcc' } });
  }, label);
  t.equal(outcome.detections.length, 0, `${label}: no detection`);
  return outcome;
}

const failures = hostileVendorAInputs();

for (const [label, input, reason] of failures) {
  t.test(label, async (t) => {
    t.match(run(t, label, input).failure, reason);
  });
}

t.test('prototype is untouched after the pollution attempt', async (t) => {
  t.equal(({} as Record<string, unknown>).eventType, undefined);
});

t.test('wide documents: element count is capped before parsing', async (t) => {
  for (const [label, input, reason] of wideVendorAInputs()) t.match(run(t, label, input).failure, reason);
  const plates = Array.from({ length: 12_000 }, (_, i) => `<Plate><captureTime>20300102T030405+0100</captureTime><picName>${i}</picName><x/></Plate>`);
  // Not hostile: a camera's own backlog just under the element cap still parses.
  const largest = vendorA.parse({ body: enc(`<Plates>${plates.join('')}</Plates>`), contentType: XML }, {});
  t.equal(largest.failure, undefined);
  t.equal(largest.errors.length, 12_000, 'every entry lacks its plateNumber');
  t.equal(largest.cursor, '11999');
});

t.test('wrong types are errors or empty results, never exceptions', async (t) => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['alert root is text', '<EventNotificationAlert>ANPR</EventNotificationAlert>', { errors: [{ reason: 'EventNotificationAlert without eventType' }] }],
    [
      'eventType is an element',
      '<EventNotificationAlert><eventType><x>ANPR</x></eventType></EventNotificationAlert>',
      { errors: [{ reason: 'EventNotificationAlert without eventType' }] },
    ],
    ['Plates root is text', '<Plates>hello</Plates>', { errors: [], ignored: 0 }],
    ['Plate is text', '<Plates><Plate>hello</Plate></Plates>', { errors: [{ item: 0, reason: 'Plate entry has no child elements' }] }],
    [
      'picName is an element',
      '<Plates><Plate><picName><d>1</d></picName><plateNumber>A1</plateNumber><captureTime>2030-01-01T00:00:00Z</captureTime></Plate></Plates>',
      { errors: [{ item: 0, reason: /malformed picName \(not text\)/ }] },
    ],
  ];
  for (const [label, xml, expected] of cases) {
    const outcome = run(t, label, { body: enc(xml), contentType: XML });
    t.equal(outcome.failure, undefined, label);
    t.match(outcome, expected, label);
  }
});

t.test('invalid UTF-8 inside an otherwise valid alert does not throw', async (t) => {
  const body = Buffer.concat([
    Buffer.from('<EventNotificationAlert><eventType>ANPR</eventType><ANPR><licensePlate>'),
    Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
    Buffer.from('</licensePlate></ANPR><dateTime>2030-01-01T00:00:00Z</dateTime></EventNotificationAlert>'),
  ]);
  let outcome: ParseOutcome | undefined;
  t.doesNotThrow(() => {
    outcome = vendorA.parse({ body, contentType: XML }, {});
  });
  t.equal(outcome?.failure, undefined);
});
