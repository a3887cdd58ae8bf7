import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/**
 * Runs bot-setup.ts against the hub's database (before the hub starts: PGlite opens in one
 * process). Resolves to a link code for the demo chat, or null when it is linked already.
 */
export async function setupDemoBot(env: Record<string, string>, adminEmail: string): Promise<string | null> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(root, 'scripts/demo/bot-setup.ts'), adminEmail], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  const line = stdout.trim().split('\n').at(-1) ?? '{}';
  return (JSON.parse(line) as { link_code: string | null }).link_code;
}
