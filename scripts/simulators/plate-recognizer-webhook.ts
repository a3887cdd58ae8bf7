import { isMain, parseCliArgs } from './cli-args.ts';
import { jsonBody, postReader, readerFixture, withImage } from './reader-post.ts';
import type { ReaderBody, ReaderRead } from './reader-post.ts';

/**
 * Plate Recognizer's webhook (docs/camera-formats.md "Plate Recognizer webhook"): Stream's
 * `recognition` post or Snapshot's `image.done`, from the real payloads in the adapter's
 * fixtures, as JSON ("Data Only") or multipart with a JPEG ("Webhook with Image").
 * Run: npx tsx scripts/simulators/plate-recognizer-webhook.ts --url http://127.0.0.1:8080/api/v1/ingest/plate_recognizer --plate AB123 [--format stream|snapshot] [--image]
 */

export type PlateRecognizerFormat = 'stream' | 'snapshot';

/** Stream writes `2021-09-29T05:56:13.606935Z`; Snapshot `2025-05-30 13:59:09.481824` (UTC, no offset). */
const streamTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');
const snapshotTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

export function plateRecognizerBody(read: ReaderRead, format: PlateRecognizerFormat = 'stream', image = false): ReaderBody {
  const post = readerFixture('plate-recognizer', format === 'stream' ? 'stream-recognition.json' : 'snapshot-image-done.json');
  const data = post.data as Record<string, unknown>;
  const [first] = data.results as Array<Record<string, unknown>>;
  const result = { ...first, plate: read.plate.toLowerCase(), candidates: [{ plate: read.plate.toLowerCase() }] };
  const body = {
    ...post,
    data: {
      ...data,
      camera_id: read.camera ?? null,
      timestamp: format === 'stream' ? streamTime(read.timeMs) : snapshotTime(read.timeMs),
      results: [result],
    },
  };
  return image ? withImage(jsonBody(body), 'json', 'upload') : jsonBody(body);
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const answer = await postReader(
    args.get('url') ?? 'http://127.0.0.1:8080/api/v1/ingest/plate_recognizer',
    plateRecognizerBody(
      { plate: args.get('plate') ?? 'AB123CD', timeMs: Date.now(), camera: args.get('camera') ?? 'camera-1' },
      args.get('format') === 'snapshot' ? 'snapshot' : 'stream',
      args.has('image'),
    ),
  );
  console.log(JSON.stringify(answer));
}
