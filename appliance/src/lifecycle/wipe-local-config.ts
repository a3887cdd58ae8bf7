import { randomBytes } from 'node:crypto';
import { link, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import TOML from '@iarna/toml';
import type { ConfigTree } from '../config/merge.ts';
import { writeFileAtomic } from '../vault/atomic-file.ts';
import { secureDeleteFile } from '../vault/secure-delete.ts';
import { scrubLocalConfig } from './scrub-config.ts';

/**
 * The wipe's treatment of the local TOML (scrub-config.ts says what goes): the scrubbed copy
 * replaces the file atomically, then the old contents are overwritten and unlinked like the
 * other wiped files (vault/secure-delete.ts).
 *
 * Why a hard link: `writeFileAtomic` renames a new file over the old one, which frees the old
 * blocks without overwriting them. A second name for the old inode, taken first, keeps it
 * reachable so secureDeleteFile can overwrite it once the new file is in place, and at every
 * moment the path holds a whole TOML, old or new. The link is named `*.tmp`, which the wipe
 * deletes, so a crash in between leaves nothing a later wipe would keep. Where the filesystem
 * refuses hard links, the old file is securely deleted first and the copy written after: a
 * crash in that gap leaves no TOML (the device then starts on defaults), never a secret.
 *
 * The file is rewritten even when no secret key was found: comments (TOML.stringify writes
 * none) may hold a commented-out password, and the old blocks are overwritten either way.
 */
export type LocalConfigWipe =
  | { outcome: 'absent' }
  | { outcome: 'scrubbed'; file: string; removed: string[]; parked: string[] }
  /** Not readable as TOML, so no secret could be told from a setting: deleted whole. */
  | { outcome: 'deleted'; file: string; reason: string };

export async function wipeLocalConfig(file: string): Promise<LocalConfigWipe> {
  let real: string;
  try {
    // A symlinked TOML: scrub the file it names, not the link.
    real = await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { outcome: 'absent' };
    throw error;
  }
  const text = await readFile(real, 'utf8');
  let tree: ConfigTree;
  try {
    tree = TOML.parse(text) as ConfigTree;
  } catch (error) {
    await secureDeleteFile(real);
    return { outcome: 'deleted', file: real, reason: `not TOML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
  const { tree: clean, removed, parked } = scrubLocalConfig(tree);
  await replaceSecurely(real, TOML.stringify(clean as TOML.JsonMap));
  return { outcome: 'scrubbed', file: real, removed, parked };
}

async function replaceSecurely(file: string, contents: string): Promise<void> {
  const old = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.wiped.tmp`);
  let linked = true;
  try {
    await link(file, old);
  } catch {
    linked = false;
  }
  if (!linked) {
    await secureDeleteFile(file);
    await writeFileAtomic(file, contents);
    return;
  }
  try {
    await writeFileAtomic(file, contents);
  } catch (error) {
    // No scrubbed copy could be written: the secrets must still go, the settings with them.
    await secureDeleteFile(old).catch(() => undefined);
    await secureDeleteFile(file).catch(() => undefined);
    throw error;
  }
  await secureDeleteFile(old);
}
