import t from 'tap';
import { HubError } from '../platform/errors.ts';
import { parseBatchUpload } from './batch-upload.ts';
import { encodeBatch, encodeMultipart, jpegLike, sampleDetection } from './uploads.test-helper.ts';

const MAX = 1024 * 1024;
const status = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof HubError ? err.status : -1;
  }
  return undefined;
};

t.test('metadata items and image parts come out of a batch body', async (t) => {
  const full = jpegLike(2000);
  const { body, contentType } = encodeBatch([{ detection: sampleDetection(), fullScene: full }, { detection: sampleDetection() }]);
  const upload = parseBatchUpload(body, contentType, MAX);
  t.equal(upload.items.length, 2);
  t.same([...upload.parts.keys()], ['img-0-full_scene']);
  t.same(Buffer.from(upload.parts.get('img-0-full_scene') ?? []), full);
});

t.test('envelope errors map to 415 and 400', async (t) => {
  const json = (text: string) => encodeMultipart([{ name: 'metadata', contentType: 'application/json', body: Buffer.from(text) }]);
  const ok = json(JSON.stringify({ detections: [sampleDetection()] }));
  t.equal(
    status(() => parseBatchUpload(ok.body, 'application/json', MAX)),
    415,
    'not multipart',
  );
  t.equal(
    status(() => parseBatchUpload(ok.body, 'multipart/form-data', MAX)),
    400,
    'no boundary',
  );
  t.equal(
    status(() => parseBatchUpload(ok.body.subarray(0, ok.body.length - 20), ok.contentType, MAX)),
    400,
    'truncated',
  );
  const noMeta = encodeMultipart([{ name: 'img', contentType: 'image/jpeg', body: jpegLike(10) }]);
  t.equal(
    status(() => parseBatchUpload(noMeta.body, noMeta.contentType, MAX)),
    400,
    'missing metadata',
  );
  const badJson = json('{"detections": [');
  t.equal(
    status(() => parseBatchUpload(badJson.body, badJson.contentType, MAX)),
    400,
    'bad JSON',
  );
  for (const text of ['[]', '{"detections": []}', '{"items": [1]}', 'null']) {
    const notBatch = json(text);
    t.equal(
      status(() => parseBatchUpload(notBatch.body, notBatch.contentType, MAX)),
      400,
      `not a batch: ${text}`,
    );
  }
  const twice = encodeMultipart([
    { name: 'metadata', contentType: 'application/json', body: Buffer.from('{"detections":[{}]}') },
    { name: 'a', contentType: 'image/jpeg', body: jpegLike(10) },
    { name: 'a', contentType: 'image/jpeg', body: jpegLike(10) },
  ]);
  t.equal(
    status(() => parseBatchUpload(twice.body, twice.contentType, MAX)),
    400,
    'duplicate part name',
  );
  t.equal(
    status(() => parseBatchUpload(ok.body, ok.contentType, MAX)),
    undefined,
    'the good one passes',
  );
});
