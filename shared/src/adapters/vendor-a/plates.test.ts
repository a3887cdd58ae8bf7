import t from 'tap';
import { compareDigitStrings } from './fields.ts';
import { latin1, only, parseFixture, parseText } from './fixtures.test-helper.ts';

const CAMERA = { camera: { mac: '00:11:22:aa:bb:cc' } };

t.test('empty list: nothing, no cursor', async (t) => {
  t.same(parseFixture('plates-empty.xml', CAMERA), { detections: [], errors: [], ignored: 0 });
});

t.test('one Plate (a single element, not an array) with the configured MAC', async (t) => {
  const outcome = parseFixture('plates-one.xml', { camera: { id: 'gate', mac: '00:11:22:aa:bb:cc' } });
  t.equal(outcome.cursor, '203001020304050100');
  const parsed = only(outcome);
  t.same(parsed.detection, {
    detection_id: '203001020304050100',
    timestamp: '2030-01-02T02:04:05.000Z',
    camera: { id: 'gate', mac: '001122aabbcc' },
    plate: { text: 'XY12345', confidence: 0 },
    vehicle: { direction: 'exiting' },
  });
  t.same(parsed.fetchImages, [{ kind: 'plate_crop', path: '/doc/ui/images/plate/203001020304050100.jpg' }]);
  t.same(parsed.images, {});
});

t.test('without a configured MAC each entry is an error, and the cursor still advances', async (t) => {
  const outcome = parseFixture('plates-one.xml');
  t.equal(outcome.detections.length, 0);
  t.match(outcome.errors, [{ item: 0, reason: /MAC/ }]);
  t.equal(outcome.cursor, '203001020304050100');
});

t.test('many: std-cgi namespace, unordered, duplicate old entry, 25-digit picName', async (t) => {
  const outcome = parseFixture('plates-many.xml', { ...CAMERA, timezone: 'Europe/Rome' });
  t.equal(outcome.cursor, '2030010203041512345678901', 'largest picName, not the last element');
  t.equal(outcome.ignored, 2, 'one unknown plate, one duplicate');
  t.same(outcome.errors, []);
  t.same(
    outcome.detections.map((d) => [d.detection.detection_id, d.detection.plate.text, d.detection.timestamp, d.detection.plate.region]),
    [
      ['203001020304100200', 'CD456EF', '2030-01-02T02:04:10.000Z', 'ITA'],
      ['2030010203041512345678901', 'GH789', '2030-01-02T02:04:15.000Z', 'GBR'],
      ['203001020304050100', 'XY12345', '2030-01-02T02:04:05.000Z', undefined],
    ],
  );
  t.same(
    outcome.detections.map((d) => d.detection.vehicle?.direction),
    ['entering', 'exiting', 'exiting'],
  );
  t.equal(outcome.detections[1]?.fetchImages[0]?.path, '/doc/ui/images/plate/2030010203041512345678901.jpg');
});

t.test('captureTime with 4 trailing digits is camera local time', async (t) => {
  const utc = parseFixture('plates-many.xml', CAMERA);
  t.equal(utc.detections[1]?.detection.timestamp, '2030-01-02T03:04:15.000Z', 'no zone configured: UTC');
});

t.test('inline base64 images are optional', async (t) => {
  const outcome = parseFixture('plates-inline-images.xml', CAMERA);
  const [withImages, withoutImages] = outcome.detections;
  t.match(latin1(withImages?.images.plate_crop), /^\xff\xd8.*inline-plate\xff\xd9$/s);
  t.match(latin1(withImages?.images.full_scene), /inline-scene/);
  t.same(withImages?.fetchImages, [], 'nothing to fetch when the crop came inline');
  t.same(withoutImages?.images, {}, 'invalid base64 is ignored');
  t.same(withoutImages?.fetchImages, [{ kind: 'plate_crop', path: '/doc/ui/images/plate/203001020304060600.jpg' }]);
  t.equal(outcome.cursor, '203001020304060600');
});

t.test('broken entries are errors with their position; the rest still parse', async (t) => {
  const xml = `<Plates xmlns="http://www.std-cgi.com/ver20/XMLSchema">
    <Plate>just text</Plate>
    <Plate><captureTime>20300102T030405+0100</captureTime><plateNumber>A1</plateNumber><picName>../../etc/passwd</picName></Plate>
    <Plate><captureTime>20300102T030405+0100</captureTime><picName>203001020304050001</picName></Plate>
    <Plate><captureTime>yesterday</captureTime><plateNumber>B2</plateNumber><picName>203001020304050002</picName></Plate>
    <Plate><captureTime>20300102T030405+0100</captureTime><plateNumber><x>C3</x></plateNumber><picName>203001020304050003</picName></Plate>
    <Plate><captureTime>20300102T030405+0100</captureTime><plateNumber>OK 4</plateNumber></Plate>
  </Plates>`;
  const outcome = parseText(xml, CAMERA);
  t.match(outcome.errors, [
    { item: 0, reason: /no child elements/ },
    { item: 1, reason: /malformed picName/ },
    { item: 2, reason: /plateNumber/ },
    { item: 3, reason: /captureTime \(yesterday\)/ },
    { item: 4, reason: /plateNumber/ },
  ]);
  t.equal(outcome.errors.length, 5);
  const parsed = only(outcome);
  t.equal(parsed.detection.plate.text, 'OK4');
  t.match(parsed.detection.detection_id, /^[0-9a-f-]{36}$/, 'no picName: derived id');
  t.same(parsed.fetchImages, [], 'no picName: no image to fetch');
  t.equal(outcome.cursor, '203001020304050003', 'broken entries still move the cursor');
});

t.test('picName comparison: by length, then digits', async (t) => {
  t.ok(compareDigitStrings('2030010203041512345678901', '999999999999999999') > 0);
  t.ok(compareDigitStrings('203001020304050100', '203001020304050200') < 0);
  t.equal(compareDigitStrings('00123', '123'), 0);
  t.equal(compareDigitStrings('0', '0000'), 0);
});
