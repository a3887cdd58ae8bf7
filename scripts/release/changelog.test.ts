import t from 'tap';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { previousRelease, releasesIn } from './changelog.ts';

const root = join(import.meta.dirname, '..', '..');
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

t.test('releases are read newest first, Unreleased skipped', async (t) => {
  const text = `# Changelog\n\n## How\n\nNot a release \`${B}\`.\n\n## Unreleased (after 0.2.0)\n\nWritten at \`${B}\`.\n\n## 0.2.0\n\nCommit \`${A}\`, tag v0.2.0.\n\n## 0.1.0\n\nCommit \`${B}\`.\n`;
  t.same(releasesIn(text), [
    { version: '0.2.0', tag: 'v0.2.0', commit: A },
    { version: '0.1.0', tag: 'v0.1.0', commit: B },
  ]);
  t.same(previousRelease(text), { version: '0.2.0', tag: 'v0.2.0', commit: A });
});

t.test('a release without its commit, or no release at all, is refused', async (t) => {
  t.throws(() => releasesIn('## 0.3.0\n\nTagged later.\n'), /release 0\.3\.0 names no commit/);
  t.throws(() => previousRelease('# Changelog\n\n## Unreleased\n\n`' + A + '`\n'), /names no release/);
});

t.test("this repository's CHANGELOG.md names a previous release the upgrade test can check out", async (t) => {
  const release = previousRelease(await readFile(join(root, 'CHANGELOG.md'), 'utf8'));
  t.match(release.version, /^\d+\.\d+\.\d+$/);
  const git = promisify(execFile);
  const shallow = await git('git', ['rev-parse', '--is-shallow-repository'], { cwd: root }).catch(() => undefined);
  if (shallow?.stdout.trim() !== 'false') {
    t.comment('skipped the history check: not a full git clone');
    return;
  }
  const found = await git('git', ['merge-base', '--is-ancestor', release.commit, 'HEAD'], { cwd: root }).then(
    () => true,
    () => false,
  );
  t.ok(found, `${release.tag}'s commit ${release.commit} is in this branch's history`);
});
