import t from 'tap';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBuffer, closeBuffer } from './open.ts';
import { bufferStats } from './stats.ts';
import { getCursor, setCursor } from './cursors.ts';
import { countRows, fakeClock, memoryLog, tempDir } from './buffer.test-helper.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const ROWS = 300;

t.test('WAL: readers in another connection see consistent snapshots while a process writes', async (t) => {
  const file = join(tempDir(t.teardown), 'wal.db');
  // The owner creates the schema; a diagnostics reader and a second writer connection join.
  const owner = openBuffer({ file, clock: fakeClock(), log: memoryLog(), synchronous: 'NORMAL' });
  t.teardown(() => closeBuffer(owner));
  const reader = openBuffer({ file, clock: fakeClock(), log: memoryLog(), readonly: true });
  t.teardown(() => closeBuffer(reader));

  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, 'NORMAL', String(ROWS), 'w'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });

  let reads = 0;
  let sawPartial = false;
  let last = 0;
  const problems: string[] = [];
  while (!done) {
    try {
      // One read transaction: detections and images must agree (2 images per row), never a
      // half-committed insert, and the count never goes backwards.
      const [rows, imageRows] = reader.sqlite.transaction((): [number, number] => [countRows(reader, 'detections'), countRows(reader, 'images')])();
      if (imageRows !== rows * 2) problems.push(`snapshot ${rows} rows / ${imageRows} images`);
      if (rows < last) problems.push(`count went back ${last} -> ${rows}`);
      if (rows > 0 && rows < ROWS) sawPartial = true;
      last = rows;
      const stats = bufferStats(reader);
      if (stats.states.pending < rows) problems.push('stats older than the snapshot before it');
      // A second writer connection in this process waits its turn (busy_timeout), never fails.
      setCursor(owner, 'probe', String(reads));
      reads += 1;
    } catch (error) {
      problems.push(String(error));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(await exited, 0, `writer exited cleanly ${stderr}`);
  t.same(problems, []);
  t.ok(reads > 0, `${reads} reads while writing`);
  t.ok(sawPartial, 'reads happened while the writer was mid-way');
  t.equal(countRows(reader, 'detections'), ROWS);
  t.equal(getCursor(owner, 'probe'), String(reads - 1));
});
