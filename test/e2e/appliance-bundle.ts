import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The appliance as one esbuild bundle (appliance/build.mjs, the device's own build), built
 * from the current sources once per test process and started from there instead of through
 * tsx: tsx transpiles the whole appliance again on every start, which a fault test with 50
 * SIGKILL-and-restart cycles pays 50 times. Each test process builds into its own folder,
 * named for its pid, so test files running side by side never share or overwrite a bundle;
 * the folder goes when the process exits, and a folder whose process is gone is removed by
 * the next build. The folder lies under appliance/node_modules/.cache (ignored by git) so the
 * bundle's npm imports resolve exactly as they do from appliance/dist/.
 * ALPR_E2E_APPLIANCE=tsx runs the sources through tsx instead.
 */
const appliance = join(import.meta.dirname, '..', '..', 'appliance');
const cache = join(appliance, 'node_modules', '.cache', 'alpr-e2e-bundles');
let built: Promise<string> | undefined;

/** Absolute path of this process's main.mjs, built on first call. */
export function applianceBundle(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  mkdirSync(cache, { recursive: true });
  removeOrphans();
  const dir = join(cache, `${process.pid}-${Date.now()}`);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await promisify(execFile)(process.execPath, [join(appliance, 'build.mjs'), dir], { timeout: 120_000 });
  const main = join(dir, 'main.mjs');
  if (!existsSync(main)) throw new Error(`appliance bundle missing after build: ${main}`);
  return main;
}

/** Folders left by test processes that are gone (killed before their exit handler ran). */
function removeOrphans(): void {
  for (const name of readdirSync(cache)) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(cache, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
