import { open, readFile, rm } from 'node:fs/promises';

/**
 * One process per PGlite folder. PGlite has no postmaster to refuse a second opener: two
 * processes on one folder corrupt it, and PGlite then aborts (`Aborted()`) inside WASM, where
 * a blocked event loop ignores SIGTERM. So the opener takes `<dataDir>.lock` holding its pid.
 * A lock left by a process that died (SIGKILL, power loss) is taken over: the pid is checked.
 */
export async function lockPgliteFolder(dataDir: string): Promise<() => Promise<void>> {
  const path = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (holder && isAlive(holder)) {
        throw new Error(
          `the PGlite database in ${dataDir} is open in process ${holder}: stop it first (PGlite allows one process per folder; if process ${holder} is not a hub, delete ${path})`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
