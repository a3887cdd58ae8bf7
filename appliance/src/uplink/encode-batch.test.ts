import t from 'tap';
import { parseMultipart } from '@alpr/shared/adapters/multipart';
import { batchDetectionSchema, batchMetadataSchema } from '@alpr/shared/protocol/batch';
import { encodeBatch, imagePartName } from './encode-batch.ts';
import { makeItem, makeItems, sha256 } from './fixtures.test-helper.ts';

const T0 = Date.UTC(2025, 0, 1);

const parse = (encoded: ReturnType<typeof encodeBatch>) => {
  const body = Buffer.concat(encoded.chunks);
  const result = parseMultipart(body, encoded.contentType, { maxParts: 1001 });
  if (!result.ok) throw new Error(result.reason);
  return { body, parts: result.parts };
};

t.test('the shared multipart parser reads the batch back intact', async (t) => {
  const items = makeItems(5, T0);
  const encoded = encodeBatch(items);
  const { body, parts } = parse(encoded);
  t.equal(body.byteLength, encoded.byteLength, 'byteLength is the real body length');
  t.match(encoded.contentType, /^multipart\/form-data; boundary=alpr-[0-9a-f]{48}$/);
  t.equal(parts[0]?.name, 'metadata', 'metadata goes first');
  t.equal(parts[0]?.contentType, 'application/json');
  const meta = batchMetadataSchema.parse(JSON.parse(Buffer.from(parts[0]?.body ?? []).toString('utf8')));
  const detections = meta.detections.map((d) => batchDetectionSchema.parse(d));
  t.same(
    detections.map((d) => d.detection_id),
    items.map((i) => i.detection.detection_id),
    'order kept',
  );
  t.same(encoded.detections, detections, 'returned detections are what was sent');
  const byName = new Map(parts.map((p) => [p.name, p]));
  // 5 crops + scenes on even indexes (0, 2, 4).
  t.equal(parts.length, 1 + 5 + 3);
  items.forEach((item, index) => {
    const sent = detections[index];
    t.same({ ...sent, images: undefined }, { ...item.detection, images: undefined }, `detection ${index} unchanged`);
    for (const kind of ['plate_crop', 'full_scene'] as const) {
      const bytes = item.images[kind];
      const ref = sent?.images?.[kind];
      if (!bytes) {
        t.equal(ref, undefined, `no ${kind} ref for item ${index}`);
        continue;
      }
      t.same(ref, { part: imagePartName(index, kind), sha256: sha256(bytes), size: bytes.byteLength });
      const part = byName.get(imagePartName(index, kind));
      t.equal(part?.contentType, 'image/jpeg');
      t.ok(part && Buffer.from(part.body).equals(Buffer.from(bytes)), `${kind} of item ${index} byte-identical`);
    }
  });
});

t.test('wire layout: CRLF lines, closing delimiter', async (t) => {
  const item = makeItem(1, T0);
  // Printable image bytes, so the line-break check below sees only the encoder's own bytes.
  item.images = { plate_crop: Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from('JPEGDATA'), Buffer.from([0xff, 0xd9])]) };
  const encoded = encodeBatch([item], () => 'BOUNDARY');
  const text = Buffer.concat(encoded.chunks).toString('latin1');
  t.ok(text.startsWith('--BOUNDARY\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n{'));
  t.match(
    text,
    /\r\n--BOUNDARY\r\nContent-Disposition: form-data; name="img-0-plate_crop"; filename="img-0-plate_crop.jpg"\r\nContent-Type: image\/jpeg\r\n\r\n\xff\xd8/,
  );
  t.ok(text.endsWith('\xff\xd9\r\n--BOUNDARY--\r\n'));
  t.notMatch(text, /[^\r]\n/, 'every line break is CRLF');
});

t.test('a zero-length image is no image', async (t) => {
  const item = makeItem(0, T0);
  item.images.full_scene = new Uint8Array(0);
  const encoded = encodeBatch([item]);
  t.same(Object.keys(encoded.detections[0]?.images ?? {}), ['plate_crop']);
  t.equal(parse(encoded).parts.length, 2);
  const bare = makeItem(1, T0);
  bare.images = {};
  const noImages = encodeBatch([bare]);
  t.notOk('images' in (noImages.detections[0] ?? {}), 'no images key at all');
  t.equal(parse(noImages).parts.length, 1);
});

t.test('a boundary that occurs inside a part is replaced', async (t) => {
  const item = makeItem(0, T0);
  const crop = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from('xxCOLLIDExx'), Buffer.from([0xff, 0xd9])]);
  item.images = { plate_crop: crop };
  const offered: string[] = [];
  const candidates = ['COLLIDE', 'det-0000', 'SAFE'];
  const encoded = encodeBatch([item], () => {
    const next = candidates[offered.length] ?? 'unused';
    offered.push(next);
    return next;
  });
  t.same(offered, ['COLLIDE', 'det-0000', 'SAFE'], 'image bytes and metadata JSON are both checked');
  t.equal(encoded.boundary, 'SAFE');
  const { parts } = parse(encoded);
  t.ok(Buffer.from(parts[1]?.body ?? []).equals(crop));
  t.throws(() => encodeBatch([item], () => 'COLLIDE'), /no boundary/, 'gives up after a few tries');
});

t.test('an empty batch is a programming error', async (t) => {
  t.throws(() => encodeBatch([]), /at least one/);
});
