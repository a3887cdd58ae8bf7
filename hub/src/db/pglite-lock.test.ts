import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { lockPgliteFolder } from './pglite-lock.ts';

const folder = async (t: { teardown(fn: () => unknown): void }): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'alpr-pglite-lock-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'pglite');
};

t.test('a second opener is refused while the first holds the folder, then admitted', async (t) => {
  const dir = await folder(t);
  const unlock = await lockPgliteFolder(dir);
  t.equal(await readFile(`${dir}.lock`, 'utf8'), String(process.pid), 'the lock names its process');
  await t.rejects(lockPgliteFolder(dir), /open in process \d+: stop it first/);
  await unlock();
  const again = await lockPgliteFolder(dir);
  await again();
});

t.test('a lock left by a process killed with SIGKILL is taken over', async (t) => {
  const dir = await folder(t);
  // A real second process takes the lock and waits; while it lives, we are refused.
  const script = `import { lockPgliteFolder } from ${JSON.stringify(join(import.meta.dirname, 'pglite-lock.ts'))};
await lockPgliteFolder(${JSON.stringify(dir)}); process.send('locked'); setInterval(() => {}, 1000);`;
  const file = `${dir}-holder.mts`;
  await writeFile(file, script);
  const child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  await t.rejects(lockPgliteFolder(dir), new RegExp(`open in process ${child.pid}`));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const unlock = await lockPgliteFolder(dir);
  t.equal(await readFile(`${dir}.lock`, 'utf8'), String(process.pid), 'the stale lock was replaced');
  await unlock();
});
