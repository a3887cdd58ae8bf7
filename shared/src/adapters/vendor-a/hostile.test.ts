/**
 * Hostile payloads: the adapter must answer each with a failure or an error entry, never
 * throw, and finish quickly. The time bound is a safety bound (a catastrophic expansion or
 * a quadratic scan would take seconds to minutes), not a performance benchmark: the slowest
 * case here takes about a tenth of it on this 2-core machine.
 */
import t from 'tap';
import type { Test } from 'tap';
import type { ParseInput, ParseOutcome } from '../types.ts';
import { vendorA } from './index.ts';
import { fixture } from './test-support.ts';

const SAFETY_BOUND_MS = 1000;
const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const XML = 'application/xml';
const MULTIPART = 'multipart/form-data; boundary=b';

function run(t: Test, label: string, input: ParseInput): ParseOutcome {
  let outcome: ParseOutcome = { detections: [], errors: [], ignored: 0, failure: 'did not run' };
  const start = performance.now();
  t.doesNotThrow(() => {
    vendorA.recognizes(input);
    outcome = vendorA.parse(input, { camera: { mac: '001122aabbcc' } });
  }, label);
  const elapsed = performance.now() - start;
  t.ok(elapsed < SAFETY_BOUND_MS, `${label}: ${elapsed.toFixed(0)} ms is within the safety bound`);
  t.equal(outcome.detections.length, 0, `${label}: no detection`);
  return outcome;
}

const failures: [string, ParseInput, RegExp][] = [
  ['truncated XML', { body: fixture('alert-hikvision-ns.xml').subarray(0, 700), contentType: XML }, /malformed/],
  ['billion laughs', {
    body: enc('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><EventNotificationAlert><eventType>ANPR</eventType>' +
      '<ANPR><licensePlate>&lol3;</licensePlate></ANPR></EventNotificationAlert>'),
    contentType: XML,
  }, /DOCTYPE/],
  ['external entity', {
    body: enc('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Plates><Plate><plateNumber>&xxe;</plateNumber></Plate></Plates>'),
    contentType: XML,
  }, /DOCTYPE/],
  ['numeric entity flood', {
    body: enc(`<EventNotificationAlert><eventType>ANPR</eventType><ANPR><licensePlate>${'&#65;'.repeat(100_000)}</licensePlate></ANPR></EventNotificationAlert>`),
    contentType: XML,
  }, /numeric character references/],
  ['5 MB of junk', { body: new Uint8Array(5_000_000).map((_, i) => (i * 31 + 7) % 251), contentType: XML }, /not XML|exceeds/],
  ['5 MB of junk behind an XML root', {
    body: enc(`<EventNotificationAlert>${'\u0001junk<'.repeat(800_000)}`), contentType: XML,
  }, /exceeds/],
  ['5 MB of junk as multipart', { body: new Uint8Array(5_000_000).fill(0x41), contentType: MULTIPART }, /opening boundary/],
  ['100k nested elements', {
    body: enc(`<EventNotificationAlert>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</EventNotificationAlert>`), contentType: XML,
  }, /more than 10000 elements/],
  ['5k nested elements (within the element cap)', {
    body: enc(`<EventNotificationAlert>${'<a>'.repeat(5_000)}${'</a>'.repeat(5_000)}</EventNotificationAlert>`), contentType: XML,
  }, /nested/i],
  ['100k nested elements in a multipart XML part', {
    body: enc(`--b\r\nContent-Type: text/xml\r\n\r\n<EventNotificationAlert>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</EventNotificationAlert>\r\n--b--\r\n`),
    contentType: MULTIPART,
  }, /more than 10000 elements/],
  ['unterminated comment', { body: enc(`<EventNotificationAlert><!--${'x'.repeat(900_000)}`), contentType: XML }, /malformed/],
  ['prototype pollution attempt', {
    body: enc('<EventNotificationAlert><__proto__><eventType>ANPR</eventType></__proto__></EventNotificationAlert>'), contentType: XML,
  }, /malformed/],
  ['multipart without closing boundary', {
    body: fixture('multipart-crlf.bin').subarray(0, fixture('multipart-crlf.bin').length - 16), contentType: 'multipart/form-data; boundary=boundary',
  }, /closing boundary/],
  ['multipart with no boundary parameter', { body: fixture('multipart-crlf.bin'), contentType: 'multipart/form-data' }, /boundary/],
  ['multipart with 10k parts', { body: enc(`${'--b\r\n\r\nx\r\n'.repeat(10_000)}--b--\r\n`), contentType: MULTIPART }, /more than 16 parts/],
  ['multipart with endless headers', { body: enc(`--b\r\n${'X-A: b\r\n'.repeat(500_000)}`), contentType: MULTIPART }, /headers are too large/],
  ['multipart with a million near-delimiters', {
    body: enc(`--b\r\n\r\n${'\n--bX'.repeat(1_000_000)}`), contentType: MULTIPART,
  }, /closing boundary/],
];

for (const [label, input, reason] of failures) {
  t.test(label, async (t) => {
    t.match(run(t, label, input).failure, reason);
  });
}

t.test('prototype is untouched after the pollution attempt', async (t) => {
  t.equal(({} as Record<string, unknown>).eventType, undefined);
});

t.test('wide documents: element count is capped before parsing', async (t) => {
  const wideAlert = run(t, 'wide alert', { body: enc(`<EventNotificationAlert>${'<x/>'.repeat(250_000)}</EventNotificationAlert>`), contentType: XML });
  t.match(wideAlert.failure, /more than 10000 elements/);
  const widePlates = run(t, 'wide pull list', { body: enc(`<Plates>${'<x/>'.repeat(1_000_000)}</Plates>`), contentType: XML });
  t.match(widePlates.failure, /more than 50000 elements/);
  const plates = Array.from({ length: 12_000 }, (_, i) => `<Plate><captureTime>20300102T030405+0100</captureTime><picName>${i}</picName><x/></Plate>`);
  // Not hostile, so no time bound: a camera's own backlog just under the element cap still parses.
  const largest = vendorA.parse({ body: enc(`<Plates>${plates.join('')}</Plates>`), contentType: XML }, {});
  t.equal(largest.failure, undefined);
  t.equal(largest.errors.length, 12_000, 'every entry lacks its plateNumber');
  t.equal(largest.cursor, '11999');
});

t.test('wrong types are errors or empty results, never exceptions', async (t) => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['alert root is text', '<EventNotificationAlert>ANPR</EventNotificationAlert>', { errors: [{ reason: 'EventNotificationAlert without eventType' }] }],
    ['eventType is an element', '<EventNotificationAlert><eventType><x>ANPR</x></eventType></EventNotificationAlert>', { errors: [{ reason: 'EventNotificationAlert without eventType' }] }],
    ['Plates root is text', '<Plates>hello</Plates>', { errors: [], ignored: 0 }],
    ['Plate is text', '<Plates><Plate>hello</Plate></Plates>', { errors: [{ item: 0, reason: 'Plate entry has no child elements' }] }],
    ['picName is an element', '<Plates><Plate><picName><d>1</d></picName><plateNumber>A1</plateNumber><captureTime>2030-01-01T00:00:00Z</captureTime></Plate></Plates>', { errors: [{ item: 0, reason: /malformed picName \(not text\)/ }] }],
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
