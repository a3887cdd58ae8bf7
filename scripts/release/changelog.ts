/**
 * The releases CHANGELOG.md names, newest first: the one place a release's version and commit
 * are written (CHANGELOG.md "How a release upgrades from the one before"). The upgrade test
 * starts from the newest of them. Pure: the text in, the releases out.
 */
export interface Release {
  version: string;
  /** The git tag made at release (`v` + version); a single-branch clone may not carry it. */
  tag: string;
  /** The release's commit, as its entry names it. */
  commit: string;
}

/** A release's heading: `## 0.1.0`; `## Unreleased …` is not a release. */
const RELEASE_HEADING = /^## (\d+\.\d+\.\d+)\s*$/;
/** The entry names its commit as a full hash in backquotes: `` Commit `<40 hex>` ``. */
const COMMIT = /`([0-9a-f]{40})`/;

export function releasesIn(changelog: string): Release[] {
  const releases: Release[] = [];
  const sections = changelog.split(/^(?=## )/m);
  for (const section of sections) {
    const version = RELEASE_HEADING.exec(section.split('\n', 1)[0] ?? '')?.[1];
    if (version === undefined) continue;
    const commit = COMMIT.exec(section)?.[1];
    if (commit === undefined) throw new Error(`CHANGELOG.md: release ${version} names no commit (a full hash in backquotes)`);
    releases.push({ version, tag: `v${version}`, commit });
  }
  return releases;
}

/** The newest release (the first entry after "Unreleased"): what the next one upgrades from. */
export function previousRelease(changelog: string): Release {
  const [newest] = releasesIn(changelog);
  if (!newest) throw new Error('CHANGELOG.md names no release: the upgrade test starts from the newest one');
  return newest;
}
