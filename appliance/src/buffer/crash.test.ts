import t from 'tap';
import type { Test } from 'tap';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { buildSync } from 'esbuild';
import { openBuffer, closeBuffer } from './open.ts';
import { detections } from './schema/detections.ts';
import { images } from './schema/images.ts';
import { countRows, memoryLog, tempDir, fakeClock } from './buffer.test-helper.ts';
import type { SynchronousMode } from './types.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const CYCLES_PER_MODE = 10;

/**
 * The writer as one plain CommonJS file, built once per run. Started through `--import tsx`
 * each of the 20 writers spent 1.2-1.8 s of CPU loading TypeScript and drizzle before its
 * first insert, most of the test's time on a loaded machine; the bundle starts in about
 * 0.4 s. The code is the same (better-sqlite3 stays a real import, loaded from the
 * workspace's node_modules next to the bundle).
 */
function bundledWriter(teardown: (fn: () => void) => void): string {
  const dir = join(REPO_ROOT, 'appliance', 'node_modules', '.cache', 'crash-writer');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `writer-${process.pid}.cjs`);
  teardown(() => rmSync(out, { force: true }));
  buildSync({
    entryPoints: [WRITER],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
  return out;
}

/**
 * Starts the writer, waits until it has reported `killAfter` committed ids, SIGKILLs it
 * (it keeps inserting meanwhile, so the kill lands mid-transaction) and returns the ids.
 */
function runAndKill(writer: string, file: string, mode: SynchronousMode, prefix: string, killAfter: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, file, mode, '100000', prefix], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ids: string[] = [];
    let pending = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith(prefix)) ids.push(line);
      if (ids.length >= killAfter && child.exitCode === null) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer ended with ${code}/${signal}: ${stderr}`));
      else resolve(ids);
    });
  });
}

async function cycles(t: Test, writer: string, mode: SynchronousMode): Promise<void> {
  const file = join(tempDir(t.teardown), `crash-${mode}.db`);
  const reported: string[] = [];
  for (let cycle = 0; cycle < CYCLES_PER_MODE; cycle += 1) {
    // Vary the kill point: 1 to ~40 commits in, so it hits every phase of an insert.
    const killAfter = 1 + ((cycle * 17 + 5) % 40);
    reported.push(...(await runAndKill(writer, file, mode, `c${cycle}`, killAfter)));

    const buffer = openBuffer({ file, clock: fakeClock(), log: memoryLog(), synchronous: mode });
    try {
      t.equal(buffer.sqlite.pragma('integrity_check', { simple: true }), 'ok', `${mode} cycle ${cycle}: integrity`);
      const present = new Set(
        buffer.db
          .select({ id: detections.detectionId })
          .from(detections)
          .all()
          .map((row) => row.id),
      );
      const missing = reported.filter((id) => !present.has(id));
      t.same(missing, [], `${mode} cycle ${cycle}: every acknowledged id survived SIGKILL`);
      // A committed detection carries both its images, with bytes matching their hashes.
      const bad = buffer.db
        .select({ seq: detections.seq, sha: images.sha256, bytes: images.bytes })
        .from(detections)
        .leftJoin(images, eq(images.seq, detections.seq))
        .all()
        .filter((row) => row.bytes === null || createHash('sha256').update(row.bytes).digest('hex') !== row.sha)
        .map((row) => row.seq);
      t.same(bad, [], `${mode} cycle ${cycle}: images intact`);
      t.equal(countRows(buffer, 'images'), present.size * 2, `${mode} cycle ${cycle}: no half-written detection`);
    } finally {
      closeBuffer(buffer);
    }
  }
  t.ok(reported.length >= CYCLES_PER_MODE, 'writers committed before each kill');
}

// The two modes run side by side (one core each): each cycle mostly waits for a writer to start.
t.test('SIGKILL never loses a committed detection (NORMAL and FULL, 10 kills each)', async (t) => {
  const writer = bundledWriter(t.teardown);
  await Promise.all([cycles(t, writer, 'NORMAL'), cycles(t, writer, 'FULL')]);
});
