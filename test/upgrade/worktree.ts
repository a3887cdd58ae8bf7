import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { previousRelease, type Release } from '../../scripts/release/changelog.ts';
import { repoRoot } from './ingest-client.ts';

const git = promisify(execFile);

/**
 * An older release checked out beside this one (`git worktree add --detach`), runnable
 * without installing anything: its node_modules is a folder of links to this checkout's
 * packages, except the workspace packages (@alpr/*), which point into the worktree so the
 * old hub runs with its own shared protocol code, not today's. Removed at teardown.
 */
export async function releaseWorktree(t: { teardown(fn: () => unknown): void }, release: Release): Promise<string> {
  const commit = await releaseCommit(release);
  const dir = join(await mkdtemp(join(tmpdir(), 'alpr-release-')), release.tag);
  await git('git', ['worktree', 'add', '--detach', dir, commit], { cwd: repoRoot });
  t.teardown(async () => {
    await git('git', ['worktree', 'remove', '--force', dir], { cwd: repoRoot }).catch(() => undefined);
    await rm(join(dir, '..'), { recursive: true, force: true });
    await git('git', ['worktree', 'prune'], { cwd: repoRoot }).catch(() => undefined);
  });
  await linkNodeModules(dir);
  return dir;
}

/** The release this code upgrades from: the newest one CHANGELOG.md names. */
export async function readPreviousRelease(): Promise<Release> {
  return previousRelease(await readFile(join(repoRoot, 'CHANGELOG.md'), 'utf8'));
}

/**
 * The release's commit as CHANGELOG.md names it first: a clone of main does not always carry
 * tags (CI clones one branch), while every commit of main's history is in any full clone.
 */
async function releaseCommit(release: Release): Promise<string> {
  const { tag, commit: recorded } = release;
  for (const ref of [recorded, tag]) {
    const found = await git('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoRoot }).catch(() => undefined);
    if (found) return found.stdout.trim();
  }
  const shallow = await git('git', ['rev-parse', '--is-shallow-repository'], { cwd: repoRoot }).catch(() => undefined);
  const why = shallow?.stdout.trim() === 'true' ? 'this clone is shallow (git fetch --unshallow)' : 'neither the tag nor its recorded commit is in this clone';
  throw new Error(`release ${tag} (commit ${recorded}, named in CHANGELOG.md) cannot be checked out: ${why}; the upgrade test starts from it`);
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
