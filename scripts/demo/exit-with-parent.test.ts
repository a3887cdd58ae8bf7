import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { pathToFileURL } from 'node:url';

const watchdog = pathToFileURL(join(import.meta.dirname, 'exit-with-parent.mjs')).href;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

t.test('a forked service stops gracefully when its parent is SIGKILLed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-orphan-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // The service: reports its pid, then waits; on SIGTERM it records that and exits.
  const service = join(dir, 'service.mjs');
  await writeFile(
    service,
    `import { writeFileSync } from 'node:fs';
process.on('SIGTERM', () => { writeFileSync(${JSON.stringify(join(dir, 'stopped'))}, 'SIGTERM'); process.exit(0); });
process.send({ pid: process.pid }); setInterval(() => {}, 1000);`,
  );
  // The parent: forks the service the way scripts/demo/processes.ts does, passes its pid up.
  const parent = join(dir, 'parent.mjs');
  await writeFile(
    parent,
    `import { fork } from 'node:child_process';
const child = fork(${JSON.stringify(service)}, [], { execArgv: ['--import', ${JSON.stringify(watchdog)}], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
child.on('message', (m) => process.send(m)); setInterval(() => {}, 1000);`,
  );
  const runner = fork(parent, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const servicePid = await new Promise<number>((resolve) => runner.once('message', (m) => resolve((m as { pid: number }).pid)));
  t.ok(alive(servicePid), 'the service runs');
  runner.kill('SIGKILL');
  const deadline = Date.now() + 30_000;
  while (alive(servicePid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  t.notOk(alive(servicePid), 'the orphaned service is gone');
  t.equal(await readFile(join(dir, 'stopped'), 'utf8').catch(() => 'no'), 'SIGTERM', 'it stopped through its SIGTERM handler');
});
