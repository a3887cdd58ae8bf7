import t from 'tap';
import { vendorA } from './index.ts';
import { fixture, MULTIPART_TYPES } from './fixtures.test-helper.ts';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

t.test('recognizes every push fixture with its content type, and bare XML by its root', async (t) => {
  for (const name of ['alert-hikvision-ns.xml', 'alert-isapi-ns.xml', 'alert-no-ns-no-decl.xml']) {
    t.ok(vendorA.recognizes({ body: fixture(name), contentType: 'application/xml' }), `${name} as application/xml`);
    t.ok(vendorA.recognizes({ body: fixture(name), contentType: 'text/xml; charset=utf-8' }), `${name} as text/xml`);
    t.ok(vendorA.recognizes({ body: fixture(name) }), `${name} without content type`);
    t.notOk(vendorA.recognizes({ body: fixture(name), contentType: 'application/json' }), `${name} labelled as JSON`);
  }
  for (const name of ['plates-many.xml', 'plates-empty.xml']) {
    t.notOk(vendorA.recognizes({ body: fixture(name), contentType: 'application/xml' }), `${name}: a pull list is never pushed`);
  }
  t.notOk(vendorA.recognizes({ body: enc('<Other><x/></Other>'), contentType: 'application/xml' }), 'XML content type alone is not enough');
  for (const [name, contentType] of Object.entries(MULTIPART_TYPES)) {
    t.ok(vendorA.recognizes({ body: fixture(name), contentType }), name);
  }
});

t.test('does not recognize other payloads', async (t) => {
  t.notOk(vendorA.recognizes({ body: enc('{"type":"smartDetectZone"}'), contentType: 'application/json' }));
  t.notOk(vendorA.recognizes({ body: enc('{"type":"smartDetectZone"}') }));
  t.notOk(vendorA.recognizes({ body: enc('<html><body/></html>') }));
  t.notOk(vendorA.recognizes({ body: new Uint8Array([1, 1, 1, 0, 0, 0, 0, 2]) }));
  const jsonPart = enc('--b\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n--b--\r\n');
  t.notOk(vendorA.recognizes({ body: jsonPart, contentType: 'multipart/form-data; boundary=b' }));
  t.notOk(vendorA.recognizes({ body: fixture('multipart-crlf.bin'), contentType: 'multipart/form-data' }), 'no boundary');
  const plates = enc('--b\r\nContent-Type: text/xml\r\n\r\n<Plates/>\r\n--b--\r\n');
  t.notOk(vendorA.recognizes({ body: plates, contentType: 'multipart/form-data; boundary=b' }), 'Plates is never pushed');
});

t.test('dispatch: unknown root, not XML, XML content type with a JSON body', async (t) => {
  t.match(vendorA.parse({ body: enc('<Other><x/></Other>'), contentType: 'text/xml' }, {}), {
    detections: [],
    failure: /unexpected XML root <Other>/,
  });
  t.match(vendorA.parse({ body: enc('{"a":1}'), contentType: 'application/xml' }, {}).failure, /not XML/);
  t.match(vendorA.parse({ body: new Uint8Array(0) }, {}).failure, /not XML/);
  t.match(vendorA.parse({ body: fixture('multipart-crlf.bin'), contentType: 'multipart/form-data' }, {}).failure, /boundary/);
});

t.test('an XML content type is not needed: the root decides', async (t) => {
  const outcome = vendorA.parse({ body: fixture('alert-hikvision-ns.xml'), contentType: 'application/octet-stream' }, {});
  t.equal(outcome.detections.length, 1);
});

t.test('a pull list may exceed the alert size cap; an alert may not', async (t) => {
  const plate =
    '<Plate><captureTime>20300102T030405+0100</captureTime><plateNumber>AB1</plateNumber><picName>203001020304050100</picName><pad>' +
    'x'.repeat(1024) +
    '</pad></Plate>';
  const bigList = enc(`<Plates>${plate.repeat(1200)}</Plates>`);
  t.ok(bigList.length > 1024 * 1024);
  const list = vendorA.parse({ body: bigList, contentType: 'application/xml' }, { camera: { mac: '001122aabbcc' } });
  t.equal(list.failure, undefined);
  t.equal(list.detections.length, 1);
  t.equal(list.ignored, 1199, 'duplicates of one picName');
  const bigAlert = enc(`<EventNotificationAlert><pad>${'x'.repeat(1024 * 1024)}</pad></EventNotificationAlert>`);
  t.match(vendorA.parse({ body: bigAlert, contentType: 'application/xml' }, {}).failure, /exceeds the 1048576-byte cap/);
});
