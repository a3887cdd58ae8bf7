import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Clock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { HubError } from '../platform/errors.ts';
import { STORE_ID_FILE } from '../images/image-store.ts';
import type { Log } from '../platform/log.ts';
import { copyWithDigest, digestFile, isEmptyFolder, listFiles, syncFile } from './files.ts';
import { DATA_FOLDER, DUMP_FILE, IMAGES_FOLDER, MANIFEST_FILE, MANIFEST_FORMAT, type Manifest, type ManifestFile } from './manifest.ts';
import { pgTools, type PgTools } from './pg-tools.ts';

export interface BackupContext {
  config: Pick<HubConfig, 'databaseUrl' | 'dataDir' | 'imageDir'>;
  clock: Clock;
  log: Log;
  /** pg_dump and pg_restore (default: Debian's newest, pg-tools.ts). */
  tools?: PgTools;
}

/** Retention's advisory lock (retention/run.ts): held here, a run in the meantime reports `skipped`. */
const RETENTION_LOCK = `SELECT pg_advisory_xact_lock(hashtext('alpr_retention'))`;
export const PGLITE_REFUSAL =
  'backups need the PostgreSQL mode (DATABASE_URL): the embedded PGlite database belongs to the one hub process that opens it. ' +
  'To copy a PGlite hub, stop it and copy HUB_DATA_DIR whole (docs/operations.md "Backup").';

/**
 * `npm run hub -- backup <dir>` (docs/operations.md "Backup"; ADR 0006): a consistent copy of
 * the database and the image folder while the hub runs and ingests.
 *  1. One transaction takes retention's lock (a retention run already going is waited for)
 *     and KEY SHARE locks on every image_segments row, so compaction cannot delete a segment
 *     the dump may name until the copy is done. Appends, sealing and registration go on.
 *  2. A second, REPEATABLE READ transaction exports its snapshot; pg_dump dumps exactly that
 *     snapshot, and the manifest's counts and migration level are read from it.
 *  3. Only then are the image files copied: segments are append-only and a detection commits
 *     only after its images were flushed, so every image the dump names is already on disk.
 *  4. The manifest is written last (through a temporary name): a folder without one is not a backup.
 */
export async function backup(ctx: BackupContext, dir: string): Promise<Manifest> {
  const url = ctx.config.databaseUrl;
  if (!url) throw new HubError('unavailable', PGLITE_REFUSAL);
  if (!(await isEmptyFolder(dir))) throw new HubError('conflict', `${dir} is not empty: back up into a new or empty folder`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tools = ctx.tools ?? (await pgTools());
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  const guard = await sql.reserve();
  const snap = await sql.reserve();
  try {
    await guard.unsafe('BEGIN');
    await guard.unsafe(RETENTION_LOCK);
    await guard.unsafe('SELECT 1 FROM image_segments FOR KEY SHARE');
    await snap.unsafe('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const [exported] = await snap.unsafe<{ id: string }[]>('SELECT pg_export_snapshot() AS id');
    if (!exported) throw new HubError('internal', 'the database exported no snapshot');
    const [facts] = await snap.unsafe<{ migration: string; collectors: string; detections: string; server: string }[]>(
      `SELECT (SELECT max(version) FROM schema_migrations) AS migration,
              (SELECT count(*) FROM collectors) AS collectors,
              (SELECT count(*) FROM detections) AS detections,
              current_setting('server_version') AS server`,
    );
    if (!facts) throw new HubError('internal', 'the database answered nothing');
    const began = Date.now();
    await tools.dump(url, exported.id, join(dir, DUMP_FILE));
    ctx.log.info({ ms: Date.now() - began }, 'database dumped');
    const files: ManifestFile[] = [];
    const dump = await digestFile(join(dir, DUMP_FILE));
    if (!dump) throw new HubError('internal', 'pg_dump wrote no file');
    await syncFile(join(dir, DUMP_FILE));
    files.push({ path: DUMP_FILE, ...dump });
    // After the dump, never before: see step 3.
    for (const path of await listFiles(ctx.config.imageDir)) {
      const copied = await copyWithDigest(join(ctx.config.imageDir, path), join(dir, IMAGES_FOLDER, path));
      if (copied) files.push({ path: `${IMAGES_FOLDER}/${path}`, ...copied });
    }
    for (const name of await topLevelFiles(ctx.config.dataDir)) {
      const copied = await copyWithDigest(join(ctx.config.dataDir, name), join(dir, DATA_FOLDER, name));
      if (copied) files.push({ path: `${DATA_FOLDER}/${name}`, ...copied });
    }
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      created_at: ctx.clock.now().toISOString(),
      hub_version: await hubVersion(),
      postgres: { server_version: facts.server, pg_dump: await tools.version() },
      migration: facts.migration,
      image_store: await readFile(join(ctx.config.imageDir, STORE_ID_FILE), 'utf8').then(
        (s) => s.trim(),
        () => null,
      ),
      counts: { collectors: Number(facts.collectors), detections: Number(facts.detections) },
      files,
    };
    const temporary = join(dir, `${MANIFEST_FILE}.partial`);
    await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await syncFile(temporary);
    await rename(temporary, join(dir, MANIFEST_FILE));
    await syncFile(dir);
    return manifest;
  } finally {
    await snap.unsafe('ROLLBACK').catch(() => undefined);
    await guard.unsafe('ROLLBACK').catch(() => undefined);
    snap.release();
    guard.release();
    await sql.end({ timeout: 5 });
  }
}

/** Regular files directly in HUB_DATA_DIR: the hub secret, a generated certificate. Not the PGlite or image folders. */
async function topLevelFiles(dataDir: string): Promise<string[]> {
  const entries = await readdir(dataDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

export async function hubVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
