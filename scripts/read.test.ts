import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadLabels } from './bench/read-dataset.ts';

const SCRIPT = fileURLToPath(new URL('./read.ts', import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', SCRIPT, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

t.test('npm run read prints one JSON array per image, then exits 2 with one line for a file it cannot decode', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'read-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const broken = join(dir, 'broken.jpg');
  writeFileSync(broken, 'this is not a JPEG');
  const photo = loadLabels()[0];
  if (!photo) throw new Error('dataset is empty');
  const result = await run(['--region', 'us', photo.image, broken]);
  t.equal(result.code, 2);
  t.equal(result.stderr.trim().split('\n').length, 1, 'one line');
  t.match(result.stderr, `${broken}: not a JPEG`);
  const plates = JSON.parse(result.stdout) as { plate: string; confidence: number; box: object; candidates: unknown[]; ms: number }[];
  t.ok(Array.isArray(plates));
  t.ok(
    plates.some((p) => p.plate === photo.plate),
    `${photo.plate} read from the photograph`,
  );
  for (const p of plates) t.match(p, { confidence: Number, box: { x: Number, y: Number, width: Number, height: Number }, candidates: Array, ms: Number });
});

t.test('an unknown region or no image is a usage error', async (t) => {
  const region = await run(['--region', 'mars', 'x.jpg']);
  t.equal(region.code, 2);
  t.match(region.stderr, 'unknown region');
  const none = await run([]);
  t.equal(none.code, 2);
  t.match(none.stderr, 'no image given');
});
