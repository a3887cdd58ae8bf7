import t from 'tap';
import { checkImageContent, MAX_IMAGE_BYTES, servableImages } from './image-content.ts';

const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]);
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
const text = new TextEncoder().encode('Not Found\r\n'); // the 11 bytes of a real mislabelled part

t.test('JPEG and PNG by signature; text, truncated headers and oversize are refused', async (t) => {
  t.same(checkImageContent(jpeg), { ok: true, format: 'jpeg' });
  t.same(checkImageContent(png), { ok: true, format: 'png' });
  t.match(checkImageContent(text), { ok: false, reason: /not a JPEG or PNG \(starts 4e 6f 74 20\)/ });
  t.match(checkImageContent(new Uint8Array()), { ok: false, reason: 'empty' });
  t.match(checkImageContent(jpeg.subarray(0, 3)), { ok: false }, 'a bare start marker is not a picture');
  t.match(checkImageContent(png.subarray(0, 8)), { ok: false }, 'a bare PNG signature is not a picture');
  t.match(checkImageContent(Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])), { ok: false }, 'GIF is not served');
  const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
  big.set(jpeg);
  t.match(checkImageContent(big), { ok: false, reason: /over the 4194304-byte limit/ });
  t.same(checkImageContent(big.subarray(0, MAX_IMAGE_BYTES)), { ok: true, format: 'jpeg' }, 'exactly the limit is fine');
});

t.test('servableImages keeps the good image and reports the bad one', async (t) => {
  const result = servableImages({ plate_crop: text, full_scene: jpeg });
  t.same(Object.keys(result.images), ['full_scene']);
  t.same(result.dropped, [{ kind: 'plate_crop', size: 11, reason: 'not a JPEG or PNG (starts 4e 6f 74 20)' }]);
  t.same(servableImages({}), { images: {}, dropped: [] });
});
