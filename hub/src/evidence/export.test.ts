import t from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { createWriteStream } from 'node:fs';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { loadOrCreateHubKey } from '../collectors/hub-key.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { linkSigner } from '../platform/signed-links/link-signer.ts';
import { imageLink } from '../platform/signed-links/signed-link.ts';
import { verifyExport } from './manifest.ts';
import { readZipFiles } from './read-zip.ts';
import { addCamera } from '../collectors/cameras/change.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { EXPORT_DETECTIONS_PATH } from '../platform/http/paths.ts';
import { cliInProcess } from '../cli/cli-world.test-helper.ts';

const ctx = await adminTestContext(t);
const viewer = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps);
const dir = await mkdtemp(join(tmpdir(), 'alpr-evidence-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const key = await loadOrCreateHubKey(ctx.deps.db, ctx.clock.now());
// A camera entered on the hub: its name and time zone go into the export (docs/cameras-central.md).
const gate = await addCamera(ctx.deps, SYSTEM_ACTOR, collector.collectorId, {
  name: 'Evidence gate',
  vendor: 'vendor_a',
  mode: 'push',
  timezone: 'Europe/Paris',
});
await uploadBatch(
  ctx.app,
  collector.apiKey,
  ['EVD001', 'EVD001', 'OTHER1'].map((text, i) => ({
    detection: sampleDetection({
      camera: { id: gate.camera.id, mac: '7cd8b328641b' },
      plate: { text, confidence: 0.9 },
      timestamp: new Date(ctx.clock.now().getTime() - 600_000 + i * 1000).toISOString(),
    }),
    fullScene: jpegLike(5000),
    plateCrop: jpegLike(900),
  })),
);

/** `npm run hub -- export verify`, in this process (cli-world.test-helper.ts; main.test.ts runs the entry point). */
async function cli(file: string, ...extra: string[]): Promise<{ code: number; out: string }> {
  const run = await cliInProcess({ PATH: process.env['PATH'] ?? '' }, ['export', 'verify', file, ...extra], '');
  return { code: run.code, out: run.stdout };
}

function writeZip(path: string, files: Map<string, Uint8Array>): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new ZipFile();
    for (const [name, bytes] of files) zip.addBuffer(Buffer.from(bytes), name);
    zip.end();
    zip.outputStream
      .pipe(createWriteStream(path))
      .on('finish', () => resolve())
      .on('error', reject);
  });
}

t.test('an export of a search verifies offline; one changed byte of one image does not', async (t) => {
  const res = await send(ctx, viewer, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=EVD001&purpose=criminal_investigation&case_number=EV-9&reason=case%20EV-9`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/zip');
  t.equal(res.headers.get('x-ratelimit-limit'), '5', 'the spec export limit');
  const file = join(dir, 'export.zip');
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  const files = await readZipFiles(file);
  t.same([...files.keys()].filter((n) => !n.startsWith('images/')).sort(), [
    'chain.json',
    'detections.csv',
    'detections.json',
    'hub-public-key.txt',
    'manifest.json',
    'manifest.sig',
  ]);
  t.equal([...files.keys()].filter((n) => n.startsWith('images/')).length, 4, 'two detections, two images each');
  const detections = JSON.parse(Buffer.from(files.get('detections.json') ?? []).toString()) as Array<{
    plate_number: string;
    camera_name: string;
    camera_timezone: string;
  }>;
  t.same(
    detections.map((d) => d.plate_number),
    ['EVD001', 'EVD001'],
  );
  t.match(detections[0], { camera_name: 'Evidence gate', camera_timezone: 'Europe/Paris' }, "the camera's name and clock zone from its record on the hub");
  t.match(Buffer.from(files.get('detections.csv') ?? []).toString(), /^id,detection_id,plate_number/);
  t.same(verifyExport(files, key.publicKey), { ok: true, problems: [], keySource: 'given', detections: 2 });
  t.match(await cli(file, '--public-key', key.publicKeyBase64), { code: 0, out: /^VERIFIED: 2 detections/ });

  const image = [...files.keys()].find((n) => n.startsWith('images/')) as string;
  const altered = new Map(files);
  const bytes = Buffer.from(files.get(image) ?? []);
  bytes[100] = (bytes[100] ?? 0) ^ 0xff;
  altered.set(image, bytes);
  const bad = join(dir, 'altered.zip');
  await writeZip(bad, altered);
  const result = await cli(bad, '--public-key', key.publicKeyBase64);
  t.equal(result.code, 1);
  t.match(result.out, new RegExp(`NOT VERIFIED: 1 problem\\(s\\)\\n  - ${image.replace(/\./g, '\\.')}: altered`));

  const missing = new Map(files);
  missing.delete(image);
  t.match(verifyExport(missing, key.publicKey).problems, [new RegExp(`${image}: missing`), /is not in the export/]);
  const forged = new Map(files);
  const manifest = JSON.parse(Buffer.from(files.get('manifest.json') ?? []).toString()) as { reason: string; query: Record<string, string> };
  t.match(manifest.query, { purpose: 'criminal_investigation', case_number: 'EV-9' }, 'the manifest names the purpose and case');
  forged.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, reason: 'something else' })));
  t.match(verifyExport(forged, key.publicKey).problems, [/signature does not match/]);
  const otherKey = Buffer.alloc(32, 7);
  t.match(verifyExport(files, otherKey).problems, [/signature does not match/, /another hub key/]);
  const rows = await ctx.database.sql<{ detail: Record<string, unknown> }>(`SELECT detail FROM audit_log WHERE action = 'export.detections'`);
  t.match(rows, [{ detail: { purpose: 'criminal_investigation', case_number: 'EV-9', reason: 'case EV-9', result_count: 2 } }]);
});

t.test('refusals', async (t) => {
  t.equal((await send(ctx, viewer, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=EVD001&reason=case%201`)).status, 400, 'a purpose is required');
  t.equal(
    (await send(ctx, viewer, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=EVD001&purpose=criminal_investigation`)).status,
    400,
    'a case number where the purpose requires one',
  );
  t.equal((await send(ctx, viewer, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=NONE99&purpose=stolen_vehicle&reason=case%201`)).status, 404);
  t.equal((await send(ctx, null, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=EVD001&purpose=stolen_vehicle&reason=case%201`)).status, 401);
  t.match(await cli(join(dir, 'nope.zip')), { code: 1, out: /cannot be read as a zip/ });
});

t.test('an image removed by retention: named in the signed manifest, 410 at its link', async (t) => {
  const [row] = await ctx.database.sql<{ crop: string }>(`SELECT crop_image_hash::text AS crop FROM detections WHERE plate_number = 'OTHER1'`);
  const crop = row!.crop;
  // What the retention run does for an image past its year (retention/images.ts).
  t.same([...(await ctx.deps.images.remove(ctx.database, [crop]))], [crop], 'its location forgotten');
  await ctx.database.sql('INSERT INTO removed_images (sha256) VALUES ($1)', [crop]);

  const link = new URL(imageLink(linkSigner(ctx.deps.config, ctx.clock.now()), crop) ?? '');
  const gone = await ctx.app.request(`${link.pathname}${link.search}`);
  t.equal(gone.status, 410);
  t.match(await gone.json(), { error: { code: 'gone', message: /removed by retention/ } });

  const res = await send(ctx, viewer, 'GET', `${EXPORT_DETECTIONS_PATH}?plate=OTHER1&purpose=stolen_vehicle&reason=case%20EV-10`);
  t.equal(res.status, 200);
  const file = join(dir, 'retired.zip');
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  const files = await readZipFiles(file);
  t.same([...files.keys()].filter((n) => n.startsWith('images/')).length, 1, 'the full scene only');
  const manifest = JSON.parse(Buffer.from(files.get('manifest.json') ?? []).toString()) as { images_removed_by_retention?: string[] };
  t.same(manifest.images_removed_by_retention, [crop]);
  t.match(await cli(file, '--public-key', key.publicKeyBase64), { code: 0, out: /^VERIFIED: 1 detections/ });
  const unlisted = new Map(files);
  unlisted.set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, images_removed_by_retention: [] })));
  t.match(verifyExport(unlisted, key.publicKey).problems, [/signature does not match/, /is not in the export/], 'the list is signed with the rest');
});
