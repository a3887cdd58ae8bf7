import { isMain, parseCliArgs } from './cli-args.ts';
import { jsonBody, postReader, readerFixture } from './reader-post.ts';
import type { ReaderBody, ReaderRead } from './reader-post.ts';

/**
 * A reader posting the generic JSON of docs/readers.md "Generic JSON", one read per post,
 * shaped like the adapter's `one-read.json` fixture.
 * Run: npx tsx scripts/simulators/generic-json-reader.ts --url http://127.0.0.1:8080/api/v1/ingest/generic_json --plate AB123 [--camera north-gate]
 */
export function genericJsonBody(read: ReaderRead, id?: string): ReaderBody {
  const sample = readerFixture('generic-json', 'one-read.json');
  const { id: _sampleId, ...rest } = sample;
  return jsonBody({ ...rest, camera: read.camera ?? 'north-gate', plate: read.plate, time: new Date(read.timeMs).toISOString(), ...(id ? { id } : {}) });
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const answer = await postReader(
    args.get('url') ?? 'http://127.0.0.1:8080/api/v1/ingest/generic_json',
    genericJsonBody({ plate: args.get('plate') ?? 'AB123CD', timeMs: Date.now(), camera: args.get('camera') ?? 'north-gate' }),
  );
  console.log(JSON.stringify(answer));
}
