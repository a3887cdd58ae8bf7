import t from 'tap';
import { detectAdapter, parseWith } from './factory.ts';
import { fixture } from './vendor-a/fixtures.test-helper.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

t.test('auto: XML is vendor_a only with an EventNotificationAlert root', async (t) => {
  const alert = fixture('alert-isapi-ns.xml');
  t.equal(detectAdapter({ body: alert, contentType: 'application/xml' })?.type, 'vendor_a');
  const parsed = parseWith('auto', { body: alert, contentType: 'application/xml' }, {});
  t.equal(parsed.adapter, 'vendor_a');
  t.equal(parsed.failure, undefined);
  t.ok(parsed.detections.length > 0, 'parsed as a vendor_a push');

  for (const [what, body] of [
    ['another root', enc('<?xml version="1.0"?><Other><plate>AB123</plate></Other>')],
    ['a pull list', fixture('plates-one.xml')],
    ['an HTML page', enc('<html><body>AB123</body></html>')],
  ] as const) {
    t.equal(detectAdapter({ body, contentType: 'application/xml' }), undefined, `${what}: no adapter`);
    t.match(
      parseWith('auto', { body, contentType: 'application/xml' }, {}),
      { failure: 'payload matches no known camera vendor', detections: [] },
      `${what}: one clear reason`,
    );
  }
  // The same pull list named explicitly still parses: only the auto route is strict.
  t.equal(parseWith('vendor_a', { body: fixture('plates-one.xml'), contentType: 'application/xml' }, { camera: { mac: '001122334455' } }).failure, undefined);
});

t.test('auto: vendor_b JSON still routes to vendor_b; junk to neither', async (t) => {
  const event = enc(JSON.stringify({ modelKey: 'event', type: 'smartDetectZone', smartDetectTypes: ['licensePlate'] }));
  t.equal(detectAdapter({ body: event, contentType: 'application/json' })?.type, 'vendor_b');
  t.equal(detectAdapter({ body: enc('hello'), contentType: 'text/plain' }), undefined);
});
