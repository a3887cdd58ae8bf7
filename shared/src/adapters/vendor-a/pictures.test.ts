import t from 'tap';
import { vendorA } from './index.ts';
import { fixture, latin1, MULTIPART_TYPES, only, parseFixture } from './fixtures.test-helper.ts';

const isJpeg = (bytes: Uint8Array | undefined): boolean =>
  bytes !== undefined && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9;

t.test('boundary=boundary, CRLF: XML part by content type, pictures by Content-ID/name', async (t) => {
  const parsed = only(parseFixture('multipart-crlf.bin'));
  t.equal(parsed.detection.detection_id, 'example-uuid-0001');
  t.equal(parsed.detection.plate.text, 'XY12345');
  t.ok(isJpeg(parsed.images.plate_crop));
  t.match(latin1(parsed.images.plate_crop), /plate-crop-1/);
  t.ok(isJpeg(parsed.images.full_scene));
  t.match(latin1(parsed.images.full_scene), /scene-1/, 'detectionPicture is the full scene');
  t.same(parsed.fetchImages, []);
});

t.test('the same body with LF-only line endings parses the same', async (t) => {
  const bytes = Uint8Array.from(latin1(fixture('multipart-crlf.bin')).replace(/\r\n/g, '\n'), (c) => c.charCodeAt(0));
  t.notOk(bytes.includes(0x0d), 'no CR left');
  const parsed = only(vendorA.parse({ body: bytes, contentType: MULTIPART_TYPES['multipart-crlf.bin'] }, {}));
  t.equal(parsed.detection.plate.text, 'XY12345');
  t.match(latin1(parsed.images.plate_crop), /plate-crop-1/);
  t.match(latin1(parsed.images.full_scene), /scene-1/);
});

t.test('dash-run boundary, ;filename=, pictures named only through pictureInfo', async (t) => {
  const parsed = only(parseFixture('multipart-dashrun.bin'));
  t.equal(parsed.detection.plate.text, '京A12345');
  t.equal(parsed.detection.timestamp, '2030-01-02T10:48:03.847Z');
  t.ok(isJpeg(parsed.images.plate_crop), 'a dash run inside the JPEG did not cut it');
  t.match(latin1(parsed.images.plate_crop), /plate-crop-2\r\n-{29}7e1397X/);
  t.match(latin1(parsed.images.full_scene), /vehicle-2/, 'vehiclePicture stands in for a missing scene');
});

t.test('empty plate picture, image/pjpeg scene, XML part found by its leading <', async (t) => {
  const parsed = only(parseFixture('multipart-empty-pjpeg.bin', { timezone: 'UTC' }));
  t.equal(parsed.detection.detection_id, 'example-uuid-0003');
  t.equal(parsed.images.plate_crop, undefined, 'a zero-length part is no image');
  t.ok(isJpeg(parsed.images.full_scene));
  t.match(latin1(parsed.images.full_scene), /scene-3/);
});

const part = (headers: string[], body: string): string => `--b\r\n${headers.join('\r\n')}\r\n\r\n${body}\r\n`;
const ALERT = latin1(fixture('alert-hikvision-ns.xml'));
const mp = (parts: string[]) =>
  vendorA.parse({ body: Buffer.from(`${parts.join('')}--b--\r\n`, 'latin1'), contentType: 'multipart/form-data; boundary=b' }, {});

t.test('detectionPicture wins over vehiclePicture regardless of order; text parts are never images', async (t) => {
  const parsed = only(
    mp([
      part(['Content-Disposition: form-data; name="file.xml"', 'Content-Type: text/xml'], ALERT),
      part(['Content-Disposition: form-data; name="vehiclePicture.jpg"', 'Content-Type: image/jpeg'], 'VEHICLE'),
      part(['Content-Disposition: form-data; name="detectionPicture.jpg"', 'Content-Type: image/jpeg'], 'SCENE'),
      part(['Content-Disposition: form-data; name="licensePlatePicture.jpg"', 'Content-Type: text/plain'], 'NOT AN IMAGE'),
    ]),
  );
  t.equal(latin1(parsed.images.full_scene), 'SCENE');
  t.equal(parsed.images.plate_crop, undefined);
});

t.test('multipart without an XML part, or with the wrong root, is a failure', async (t) => {
  t.match(mp([part(['Content-Disposition: form-data; name="x"', 'Content-Type: image/jpeg'], 'JPEG')]).failure, /without an XML part/);
  t.match(mp([part(['Content-Type: application/xml'], '<Plates/>')]).failure, /unexpected XML root <Plates>/);
  t.match(mp([part(['Content-Type: application/xml'], '<EventNotificationAlert><a></EventNotificationAlert>')]).failure, /malformed/);
});

t.test('a non-ANPR multipart event is ignored', async (t) => {
  const vmd = latin1(fixture('alert-vmd.xml'));
  t.same(mp([part(['Content-Disposition: form-data; name="fielddetection"'], vmd)]), { detections: [], errors: [], ignored: 1 });
});
