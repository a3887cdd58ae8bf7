import { isMain, parseCliArgs } from './cli-args.ts';
import { jsonBody, postReader, readerFixture } from './reader-post.ts';
import type { ReaderBody, ReaderRead } from './reader-post.ts';

/**
 * A relay of CodeProject.AI ALPR answers (docs/readers.md "CodeProject.AI"): CodeProject.AI only
 * answers the image it is sent, so what posts to us is the program that asked it (Blue Iris, a
 * script). `bare` posts the answer itself (camera named in the URL, `?camera=`), `ai_dump` the
 * Blue Iris wrapper with the relay's camera and time. Built from the adapter's fixtures.
 * Run: npx tsx scripts/simulators/codeproject-ai-relay.ts --url 'http://127.0.0.1:8080/api/v1/ingest/codeproject_ai?camera=drive' --plate AB123 [--shape bare|ai_dump]
 */

/** `Mon, 14 Oct 2024 18:04:11 GMT`, the server's `timestampUTC`. */
const httpDate = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toUTCString();

export function codeProjectAiBody(read: ReaderRead, shape: 'bare' | 'ai_dump' = 'bare'): ReaderBody {
  const answer = readerFixture('codeproject-ai', 'alpr-response.json');
  const [prediction] = answer.predictions as Array<Record<string, unknown>>;
  const found = {
    ...answer,
    predictions: [{ ...prediction, plate: read.plate, label: `Plate: ${read.plate}` }],
    message: `Found Plate: ${read.plate}`,
    timestampUTC: httpDate(read.timeMs),
  };
  if (shape === 'bare') return jsonBody(found);
  return jsonBody({ camera: read.camera, timestamp: new Date(read.timeMs).toISOString(), ai_dump: [{ api: 'alpr', found }] });
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const shape = args.get('shape') === 'ai_dump' ? 'ai_dump' : 'bare';
  const answer = await postReader(
    args.get('url') ?? 'http://127.0.0.1:8080/api/v1/ingest/codeproject_ai',
    codeProjectAiBody({ plate: args.get('plate') ?? 'AB123CD', timeMs: Date.now(), camera: args.get('camera') ?? 'driveway' }, shape),
  );
  console.log(JSON.stringify(answer));
}
