/**
 * Hostile vendor_a payloads, shared by `hostile.test.ts` (each must fail cleanly, never
 * throw) and `scripts/bench/adapter-hostile.ts` (how long each takes: a catastrophic
 * expansion or a quadratic scan would show as seconds). Built on call: some are 5 MB.
 */
import type { ParseInput } from '../types.ts';
import { fixture } from './fixtures.test-helper.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const XML = 'application/xml';
const MULTIPART = 'multipart/form-data; boundary=b';

/** [label, input, the failure reason it must give]. */
export function hostileVendorAInputs(): [string, ParseInput, RegExp][] {
  return [
    ['truncated XML', { body: fixture('alert-hikvision-ns.xml').subarray(0, 700), contentType: XML }, /malformed/],
    [
      'billion laughs',
      {
        body: enc(
          '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
            '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><EventNotificationAlert><eventType>ANPR</eventType>' +
            '<ANPR><licensePlate>&lol3;</licensePlate></ANPR></EventNotificationAlert>',
        ),
        contentType: XML,
      },
      /DOCTYPE/,
    ],
    [
      'external entity',
      {
        body: enc(
          '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Plates><Plate><plateNumber>&xxe;</plateNumber></Plate></Plates>',
        ),
        contentType: XML,
      },
      /DOCTYPE/,
    ],
    [
      'numeric entity flood',
      {
        body: enc(
          `<EventNotificationAlert><eventType>ANPR</eventType><ANPR><licensePlate>${'&#65;'.repeat(100_000)}</licensePlate></ANPR></EventNotificationAlert>`,
        ),
        contentType: XML,
      },
      /numeric character references/,
    ],
    ['5 MB of junk', { body: new Uint8Array(5_000_000).map((_, i) => (i * 31 + 7) % 251), contentType: XML }, /not XML|exceeds/],
    [
      '5 MB of junk behind an XML root',
      {
        body: enc(`<EventNotificationAlert>${'\u0001junk<'.repeat(800_000)}`),
        contentType: XML,
      },
      /exceeds/,
    ],
    ['5 MB of junk as multipart', { body: new Uint8Array(5_000_000).fill(0x41), contentType: MULTIPART }, /opening boundary/],
    [
      '100k nested elements',
      {
        body: enc(`<EventNotificationAlert>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</EventNotificationAlert>`),
        contentType: XML,
      },
      /more than 10000 elements/,
    ],
    [
      '5k nested elements (within the element cap)',
      {
        body: enc(`<EventNotificationAlert>${'<a>'.repeat(5_000)}${'</a>'.repeat(5_000)}</EventNotificationAlert>`),
        contentType: XML,
      },
      /nested/i,
    ],
    [
      '100k nested elements in a multipart XML part',
      {
        body: enc(
          `--b\r\nContent-Type: text/xml\r\n\r\n<EventNotificationAlert>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</EventNotificationAlert>\r\n--b--\r\n`,
        ),
        contentType: MULTIPART,
      },
      /more than 10000 elements/,
    ],
    ['unterminated comment', { body: enc(`<EventNotificationAlert><!--${'x'.repeat(900_000)}`), contentType: XML }, /malformed/],
    [
      'prototype pollution attempt',
      {
        body: enc('<EventNotificationAlert><__proto__><eventType>ANPR</eventType></__proto__></EventNotificationAlert>'),
        contentType: XML,
      },
      /malformed/,
    ],
    [
      'multipart without closing boundary',
      {
        body: fixture('multipart-crlf.bin').subarray(0, fixture('multipart-crlf.bin').length - 16),
        contentType: 'multipart/form-data; boundary=boundary',
      },
      /closing boundary/,
    ],
    ['multipart with no boundary parameter', { body: fixture('multipart-crlf.bin'), contentType: 'multipart/form-data' }, /boundary/],
    ['multipart with 10k parts', { body: enc(`${'--b\r\n\r\nx\r\n'.repeat(10_000)}--b--\r\n`), contentType: MULTIPART }, /more than 16 parts/],
    ['multipart with endless headers', { body: enc(`--b\r\n${'X-A: b\r\n'.repeat(500_000)}`), contentType: MULTIPART }, /headers are too large/],
    [
      'multipart with a million near-delimiters',
      {
        body: enc(`--b\r\n\r\n${'\n--bX'.repeat(1_000_000)}`),
        contentType: MULTIPART,
      },
      /closing boundary/,
    ],
  ];
}

/** Documents far wider than the element caps (10,000 for an alert, 50,000 for a pull list). */
export function wideVendorAInputs(): [string, ParseInput, RegExp][] {
  return [
    ['wide alert', { body: enc(`<EventNotificationAlert>${'<x/>'.repeat(250_000)}</EventNotificationAlert>`), contentType: XML }, /more than 10000 elements/],
    ['wide pull list', { body: enc(`<Plates>${'<x/>'.repeat(1_000_000)}</Plates>`), contentType: XML }, /more than 50000 elements/],
  ];
}
