import t from 'tap';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { testDatabase } from '../db/database.test-helper.ts';
import { ingestPath } from '../platform/http/paths.ts';
import { createLog } from '../platform/log.ts';
import { startTestHub } from './uploads.test-helper.ts';

/** A camera pushing straight to the hub gets the same image check as one behind an appliance. */

const multipart = readFileSync(new URL('../../../shared/src/adapters/vendor-a/fixtures/multipart-crlf.bin', import.meta.url));
// The fixture's 25-byte plate crop, replaced by 25 bytes of text under the same `image/jpeg` label.
const crop = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0plate-crop-1', 'latin1'), Buffer.from([0xff, 0xd9])]);
const text = Buffer.from('Not Found, no image here', 'latin1').subarray(0, 24);

t.test('a text part labelled image/jpeg is dropped; the detection and the real image are stored', async (t) => {
  const at = multipart.indexOf(crop);
  t.ok(at > 0, 'the fixture holds the crop');
  const mislabelled = Buffer.concat([multipart.subarray(0, at), Buffer.concat([text, Buffer.from('!')]), multipart.subarray(at + crop.length)]);
  t.equal(mislabelled.length, multipart.length, 'Content-Length still right');

  const db = await testDatabase(t);
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  const hub = await startTestHub({ db, clock: { now: () => new Date('2030-07-02T00:00:00.000Z') }, log: createLog('trace', sink) });
  t.teardown(() => hub.close());
  const res = await request(`${hub.url}${ingestPath('vendor_a')}?key=${encodeURIComponent(hub.apiKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=boundary' },
    body: mislabelled,
  });
  t.equal(res.statusCode, 200);
  t.match(await res.body.json(), { accepted: 1, results: [{ status: 'stored' }] });
  const [row] = await hub.deps.db.sql<{ plate_number: string; full_image_hash: string | null; crop_image_hash: string | null }>(
    'SELECT plate_number, full_image_hash, crop_image_hash FROM detections',
  );
  t.equal(row?.plate_number, 'XY12345');
  t.equal(row?.crop_image_hash, null, 'the text was not stored as the plate crop');
  t.ok(row?.full_image_hash, 'the real scene was stored');
  t.ok(
    lines.some((l) => l.includes('webhook image part is not an image')),
    'and the drop is logged',
  );
});
