import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './ingest-client.ts';

const git = promisify(execFile);

/**
 * An older release checked out beside this one (`git worktree add --detach`), runnable
 * without installing anything: its node_modules is a folder of links to this checkout's
 * packages, except the workspace packages (@alpr/*), which point into the worktree so the
 * old hub runs with its own shared protocol code, not today's. Removed at teardown.
 */
export async function releaseWorktree(t: { teardown(fn: () => unknown): void }, tag: string): Promise<string> {
  try {
    await git('git', ['rev-parse', '--verify', `${tag}^{commit}`], { cwd: repoRoot });
  } catch {
    throw new Error(`git tag ${tag} is missing from this clone (git fetch --tags): the upgrade test starts from it`);
  }
  const dir = join(await mkdtemp(join(tmpdir(), 'alpr-release-')), tag);
  await git('git', ['worktree', 'add', '--detach', dir, tag], { cwd: repoRoot });
  t.teardown(async () => {
    await git('git', ['worktree', 'remove', '--force', dir], { cwd: repoRoot }).catch(() => undefined);
    await rm(join(dir, '..'), { recursive: true, force: true });
    await git('git', ['worktree', 'prune'], { cwd: repoRoot }).catch(() => undefined);
  });
  await linkNodeModules(dir);
  return dir;
}

async function linkNodeModules(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(modules);
  for (const name of await readdir(join(repoRoot, 'node_modules'))) {
    if (name === '@alpr') continue;
    await symlink(join(repoRoot, 'node_modules', name), join(modules, name));
  }
  await mkdir(join(modules, '@alpr'));
  for (const pkg of ['shared', 'hub', 'appliance']) await symlink(join(dir, pkg), join(modules, '@alpr', pkg));
  // Workspace-local versions (hub/node_modules holds its own drizzle-orm and undici).
  for (const pkg of ['hub', 'appliance', 'shared']) {
    const own = join(repoRoot, pkg, 'node_modules');
    if ((await readdir(own).catch(() => undefined)) !== undefined) await symlink(own, join(dir, pkg, 'node_modules'));
  }
}
