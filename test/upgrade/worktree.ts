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
  const commit = await releaseCommit(tag);
  const dir = join(await mkdtemp(join(tmpdir(), 'alpr-release-')), tag);
  await git('git', ['worktree', 'add', '--detach', dir, commit], { cwd: repoRoot });
  t.teardown(async () => {
    await git('git', ['worktree', 'remove', '--force', dir], { cwd: repoRoot }).catch(() => undefined);
    await rm(join(dir, '..'), { recursive: true, force: true });
    await git('git', ['worktree', 'prune'], { cwd: repoRoot }).catch(() => undefined);
  });
  await linkNodeModules(dir);
  return dir;
}

/**
 * Each release's commit, recorded here because a clone of main does not always carry tags
 * (CI clones one branch), while every commit of main's history is in any full clone.
 */
const RELEASE_COMMITS: Record<string, string> = {
  'v0.1.0': '1fd7d76da35134fe3ae2ce244e53ffdf6c43af8a',
};

async function releaseCommit(tag: string): Promise<string> {
  const recorded = RELEASE_COMMITS[tag];
  for (const ref of [recorded, tag]) {
    if (!ref) continue;
    const found = await git('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoRoot }).catch(() => undefined);
    if (found) return found.stdout.trim();
  }
  const shallow = await git('git', ['rev-parse', '--is-shallow-repository'], { cwd: repoRoot }).catch(() => undefined);
  const why = shallow?.stdout.trim() === 'true' ? 'this clone is shallow (git fetch --unshallow)' : 'neither the tag nor its recorded commit is in this clone';
  throw new Error(`release ${tag} (commit ${recorded ?? 'not recorded'}) cannot be checked out: ${why}; the upgrade test starts from it`);
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
