import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HubError } from '../platform/errors.ts';

const run = promisify(execFile);

/** Debian keeps each major version's client programs here; `pg_dump` on PATH is often a wrapper that picks one. */
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';

/**
 * Pure: the newest major version among Debian's folder names (`15`, `17`), or undefined.
 * pg_dump refuses a server newer than itself, so the newest installed one is the one to use.
 */
export function newestMajor(names: readonly string[]): string | undefined {
  return names
    .filter((n) => /^\d+$/.test(n))
    .sort((a, b) => Number(a) - Number(b))
    .at(-1);
}

/** The folder holding pg_dump and pg_restore: Debian's newest, else whatever PATH finds. */
export async function findPgBin(): Promise<string | undefined> {
  const names = await readdir(DEBIAN_PG_ROOT).catch(() => []);
  const major = newestMajor(names);
  return major ? join(DEBIAN_PG_ROOT, major, 'bin') : undefined;
}

export interface PgTools {
  /** `pg_dump --version`'s words, for the manifest. */
  version(): Promise<string>;
  /** Custom-format dump of `url` as of `snapshot` (an exported snapshot id) into `file`. */
  dump(url: string, snapshot: string, file: string): Promise<void>;
  /** Restores a custom-format dump into `url` (owned by the connecting user), stopping at the first error. */
  restore(url: string, file: string): Promise<void>;
}

export async function pgTools(): Promise<PgTools> {
  const bin = await findPgBin();
  const program = (name: string): string => (bin ? join(bin, name) : name);
  const call = async (name: string, args: string[]): Promise<string> => {
    try {
      const { stdout } = await run(program(name), args, { maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const err = error as NodeJS.ErrnoException & { stderr?: string };
      if (err.code === 'ENOENT') throw new HubError('unavailable', `${name} not found: install Debian's postgresql-client (apt-get install postgresql-client)`);
      throw new HubError('internal', `${name} failed: ${(err.stderr ?? err.message).trim()}`);
    }
  };
  return {
    version: async () => (await call('pg_dump', ['--version'])).trim(),
    dump: async (url, snapshot, file) => {
      await call('pg_dump', ['--format=custom', `--snapshot=${snapshot}`, `--file=${file}`, `--dbname=${url}`]);
    },
    // --no-owner: the new server's hub user may have another name; the GRANTs to alpr_app
    // (migrations 0001/0008) are kept, so the role must exist first (restore.ts makes it).
    restore: async (url, file) => {
      await call('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${url}`, file]);
    },
  };
}
