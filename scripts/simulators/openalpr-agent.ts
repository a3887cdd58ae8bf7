import { isMain, parseCliArgs } from './cli-args.ts';
import { jsonBody, postReader, readerFixture } from './reader-post.ts';
import type { ReaderBody, ReaderRead } from './reader-post.ts';

/**
 * The OpenALPR agent's HTTP upload (docs/camera-formats.md "OpenALPR agent"): a plate group
 * (`alpr_group`, the commercial agent), per-frame results (the open-source daemon) or a
 * heartbeat, from the documented payloads in the adapter's fixtures. `camera` is `site/number`.
 * Run: npx tsx scripts/simulators/openalpr-agent.ts --url http://127.0.0.1:8080/api/v1/ingest/openalpr --plate AB123 [--kind group|results|heartbeat]
 */

export type OpenAlprKind = 'group' | 'results' | 'heartbeat';

const siteAndCamera = (camera: string | undefined): { site_id: string; camera_id: number } => {
  const [site, number] = (camera ?? 'site/1').split('/');
  return { site_id: site ?? 'site', camera_id: Number(number ?? 1) };
};

export function openAlprBody(read: ReaderRead, kind: OpenAlprKind = 'group'): ReaderBody {
  const where = siteAndCamera(read.camera);
  if (kind === 'heartbeat') return jsonBody({ ...readerFixture('openalpr', 'heartbeat.json'), ...where, timestamp: read.timeMs });
  if (kind === 'results') {
    const frame = readerFixture('openalpr', 'alpr-results.json');
    const [first] = frame.results as Array<Record<string, unknown>>;
    return jsonBody({
      ...frame,
      ...where,
      uuid: `${where.site_id}-${read.timeMs}`,
      epoch_time: Math.floor(read.timeMs / 1000),
      results: [{ ...first, plate: read.plate }],
    });
  }
  const group = readerFixture('openalpr', 'alpr-group.json');
  const uuid = `${where.site_id}-cam${where.camera_id}-${read.timeMs}`;
  return jsonBody({
    ...group,
    ...where,
    epoch_start: read.timeMs,
    epoch_end: read.timeMs + 1_257,
    uuids: [uuid],
    best_uuid: uuid,
    best_plate_number: read.plate,
    best_plate: { ...(group.best_plate as Record<string, unknown>), plate: read.plate },
  });
}

if (isMain(import.meta.url)) {
  const args = parseCliArgs(process.argv.slice(2));
  const kind = (['group', 'results', 'heartbeat'] as const).find((k) => k === args.get('kind')) ?? 'group';
  const answer = await postReader(
    args.get('url') ?? 'http://127.0.0.1:8080/api/v1/ingest/openalpr',
    openAlprBody({ plate: args.get('plate') ?? 'AB123CD', timeMs: Date.now(), camera: args.get('camera') ?? 'site/1' }, kind),
  );
  console.log(JSON.stringify(answer));
}
