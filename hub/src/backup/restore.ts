import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { HubError } from '../platform/errors.ts';
import type { Log } from '../platform/log.ts';
import { digestFile, isEmptyFolder, syncFile } from './files.ts';
import { DATA_FOLDER, DUMP_FILE, fileProblems, IMAGES_FOLDER, MANIFEST_FILE, manifestSchema, type Manifest } from './manifest.ts';
import { pgTools, type PgTools } from './pg-tools.ts';
import { PGLITE_REFUSAL } from './backup.ts';

export interface RestoreContext {
  config: Pick<HubConfig, 'databaseUrl' | 'dataDir' | 'imageDir'>;
  log: Log;
  tools?: PgTools;
}

export interface RestoreReport {
  /** The migration level the backup was taken at. */
  from_migration: string;
  /** Migrations this code applied on top (an older backup restored by newer code). */
  applied: string[];
  detections: number;
  collectors: number;
  image_files: number;
}

/**
 * The hub's application role, made before pg_restore when the new server lacks it: the dump
 * keeps migration 0008's GRANTs to alpr_app, and a GRANT to an unknown role fails the restore.
 * The same block as migration 0001 (roles are server-wide, so a dump never carries them).
 */
const APP_ROLE = `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN CREATE ROLE alpr_app NOLOGIN; END IF;
END $$`;

/**
 * `npm run hub -- restore <dir>` (docs/operations.md "Restore"): rebuilds a hub from a
 * backup on an empty server. Checks first, changes after: the manifest and every file's size
 * and SHA-256, then that the database has no tables and the image folder and the data
 * files are not there yet. Then pg_restore (one transaction), the image and data files (each
 * copy hashed again against the manifest), and the migrations of this code on top.
 */
export async function restore(ctx: RestoreContext, dir: string): Promise<RestoreReport> {
  const url = ctx.config.databaseUrl;
  if (!url) throw new HubError('unavailable', PGLITE_REFUSAL);
  const manifest = await readManifest(dir);
  const found = new Map<string, Awaited<ReturnType<typeof digestFile>>>();
  for (const file of manifest.files) found.set(file.path, await digestFile(join(dir, file.path)));
  const problems = fileProblems(manifest.files, found);
  if (problems.length > 0) throw new HubError('unprocessable', `the backup in ${dir} is damaged or incomplete:\n  - ${problems.join('\n  - ')}`);

  const images = manifest.files.filter((f) => f.path.startsWith(`${IMAGES_FOLDER}/`));
  const data = manifest.files.filter((f) => f.path.startsWith(`${DATA_FOLDER}/`));
  const target = (path: string): string =>
    path.startsWith(`${IMAGES_FOLDER}/`)
      ? join(ctx.config.imageDir, path.slice(IMAGES_FOLDER.length + 1))
      : join(ctx.config.dataDir, path.slice(DATA_FOLDER.length + 1));
  if (!(await isEmptyFolder(ctx.config.imageDir)))
    throw new HubError(
      'conflict',
      `the image folder ${ctx.config.imageDir} is not empty: restore rebuilds a hub on an empty server (an empty database and image folder)`,
    );
  for (const file of data) {
    if (await stat(target(file.path)).catch(() => undefined))
      throw new HubError(
        'conflict',
        `${target(file.path)} already exists: restore would replace this hub's ${file.path.slice(DATA_FOLDER.length + 1)}; restore into an empty HUB_DATA_DIR`,
      );
  }

  const tools = ctx.tools ?? (await pgTools());
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [tables] = await sql<
      { n: string }[]
    >`SELECT count(*) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind IN ('r', 'p')`;
    if (Number(tables?.n) > 0)
      throw new HubError('conflict', `the database at DATABASE_URL is not empty (${tables?.n} tables): restore needs an empty database (createdb a new one)`);
    await sql
      .unsafe(APP_ROLE)
      .catch((error: Error) => ctx.log.warn({ err: error }, 'alpr_app role not created; the restore needs it if the backup grants to it'));
  } finally {
    await sql.end({ timeout: 5 });
  }
  await tools.restore(url, join(dir, DUMP_FILE));

  for (const file of [...images, ...data]) {
    const to = target(file.path);
    await mkdir(dirname(to), { recursive: true, mode: 0o750 });
    await copyFile(join(dir, file.path), to);
    await syncFile(to);
    const copied = await digestFile(to);
    if (copied?.sha256 !== file.sha256) throw new HubError('internal', `${to}: the copy differs from the backup (disk error?)`);
  }
  for (const folder of new Set([...images, ...data].map((f) => dirname(target(f.path))))) await syncFile(folder);

  // Opening runs this code's migrations on top of the restored schema, and the partitions.
  const db = await openDatabase({ url, log: ctx.log, maxConnections: 2 });
  try {
    const [counts] = await db.sql<{ collectors: string; detections: string }>(
      'SELECT (SELECT count(*) FROM collectors) AS collectors, (SELECT count(*) FROM detections) AS detections',
    );
    const report: RestoreReport = {
      from_migration: manifest.migration,
      applied: db.migrations.applied,
      detections: Number(counts?.detections),
      collectors: Number(counts?.collectors),
      image_files: images.length,
    };
    if (report.detections !== manifest.counts.detections || report.collectors !== manifest.counts.collectors)
      throw new HubError(
        'internal',
        `restored ${report.detections} detections and ${report.collectors} collectors, the backup holds ${manifest.counts.detections} and ${manifest.counts.collectors}`,
      );
    return report;
  } finally {
    await db.close();
  }
}

export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new HubError('not_found', `${join(dir, MANIFEST_FILE)} not found: not a hub backup, or the backup did not finish`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HubError('unprocessable', `${MANIFEST_FILE} is not JSON`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success)
    throw new HubError(
      'unprocessable',
      `${MANIFEST_FILE} is not a hub backup manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}
