import t from 'tap';
import type { Test } from 'tap';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { openBuffer, closeBuffer } from './open.ts';
import { detections } from './schema/detections.ts';
import { images } from './schema/images.ts';
import { countRows, memoryLog, tempDir, fakeClock } from './buffer.test-helper.ts';
import type { SynchronousMode } from './types.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const CYCLES_PER_MODE = 10;

/**
 * Starts the writer, waits until it has reported `killAfter` committed ids, SIGKILLs it
 * (it keeps inserting meanwhile, so the kill lands mid-transaction) and returns the ids.
 */
function runAndKill(file: string, mode: SynchronousMode, prefix: string, killAfter: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, mode, '100000', prefix], {
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

async function cycles(t: Test, mode: SynchronousMode): Promise<void> {
  const file = join(tempDir(t.teardown), `crash-${mode}.db`);
  const reported: string[] = [];
  for (let cycle = 0; cycle < CYCLES_PER_MODE; cycle += 1) {
    // Vary the kill point: 1 to ~40 commits in, so it hits every phase of an insert.
    const killAfter = 1 + ((cycle * 17 + 5) % 40);
    reported.push(...(await runAndKill(file, mode, `c${cycle}`, killAfter)));

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

// The two modes run side by side (one core each): each cycle mostly waits for tsx to start.
t.test('SIGKILL never loses a committed detection (NORMAL and FULL, 10 kills each)', async (t) => {
  await Promise.all([cycles(t, 'NORMAL'), cycles(t, 'FULL')]);
});
