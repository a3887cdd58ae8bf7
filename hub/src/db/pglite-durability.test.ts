/**
 * Does the hub on embedded PGlite keep every acknowledged write across a SIGKILL? A real
 * child process commits rows one transaction at a time and reports each commit over IPC
 * (the moment the hub would answer 2xx); it is killed with SIGKILL mid-stream, twice, and
 * the folder is reopened: every reported row must be there. (Power loss is another matter:
 * see docs/database.md, "PGlite and durability".)
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLog } from '../platform/log.ts';
import { openDatabase } from './client.ts';

t.test('PGlite keeps every committed row across SIGKILL of its process', { timeout: 300_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-pglite-kill-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'pglite');
  const writer = join(dir, 'writer.mts');
  await writeFile(
    writer,
    `import { openDatabase } from ${JSON.stringify(join(import.meta.dirname, 'client.ts'))};
import { createLog } from ${JSON.stringify(join(import.meta.dirname, '..', 'platform', 'log.ts'))};
const db = await openDatabase({ dataDir: ${JSON.stringify(dataDir)}, log: createLog('silent') });
await db.sql('CREATE TABLE IF NOT EXISTS kill_probe (id bigserial PRIMARY KEY, round int NOT NULL, n int NOT NULL)');
for (let n = 1; ; n++) {
  await db.transaction(async (tx) => { await tx.sql('INSERT INTO kill_probe (round, n) VALUES ($1, $2)', [Number(process.argv[2]), n]); });
  process.send?.(n);
}
`,
  );
  let acknowledged = 0;
  for (const round of [1, 2]) {
    const child = fork(writer, [String(round)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Kill at a different point each round, once the writer is well into its stream.
    const target = 40 + round * 37;
    let last = 0;
    await new Promise<void>((resolve, reject) => {
      child.on('message', (n) => {
        last = Number(n);
        if (last >= target && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited with ${code}`))));
    });
    await exited;
    acknowledged += last;
    const db = await openDatabase({ dataDir, log: createLog('silent') });
    const [row] = await db.sql<{ n: string }>('SELECT count(*)::text AS n FROM kill_probe');
    await db.close();
    t.ok(Number(row?.n) >= acknowledged, `round ${round}: ${row?.n} rows held, ${acknowledged} acknowledged`);
  }
});
