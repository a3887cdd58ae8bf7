import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

export const DEMO_ADMIN_EMAIL = 'admin@demo.local';

/**
 * The demo's dashboard admin: created with the hub CLI on the first `npm start` (the hub must
 * not be running: PGlite opens in one process), with a random password kept in `passwordFile`
 * (0600) so later starts can print it again.
 */
export async function createDemoAdmin(env: Record<string, string>, passwordFile: string): Promise<{ email: string; password: string }> {
  const existing = await readFile(passwordFile, 'utf8').catch(() => undefined);
  if (existing) return { email: DEMO_ADMIN_EMAIL, password: existing.trim() };
  const password = `demo-${randomBytes(9).toString('base64url')}`;
  const child = run(
    process.execPath,
    ['--import', 'tsx', join(root, 'hub/src/cli/main.ts'), 'user', 'create', '--email', DEMO_ADMIN_EMAIL, '--role', 'admin', '--password-stdin'],
    {
      cwd: root,
      env: { ...process.env, ...env },
    },
  );
  child.child.stdin?.end(password);
  await child;
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return { email: DEMO_ADMIN_EMAIL, password };
}
