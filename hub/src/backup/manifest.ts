import { z } from 'zod';

/**
 * The backup manifest (docs/operations.md "Backup"): what was copied, from which hub and
 * schema, and each file's size and SHA-256, so a restore can refuse a damaged or partial
 * backup before it touches the new server. Paths are relative to the backup folder, `/`
 * separated, and never leave it.
 */
export const MANIFEST_FILE = 'manifest.json';
export const DUMP_FILE = 'database.dump';
/** Image folder contents (segments, store-id, pre-segment tree) go under this folder. */
export const IMAGES_FOLDER = 'images';
/** Top-level files of HUB_DATA_DIR (the hub secret, a generated TLS certificate) go here. */
export const DATA_FOLDER = 'data';
export const MANIFEST_FORMAT = 'alpr-hub-backup/1';

const relativePath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.startsWith('/') && !p.split('/').some((part) => part === '..' || part === '' || part === '.'), 'must stay inside the backup folder');

export const manifestFileSchema = z.object({
  path: relativePath,
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  created_at: z.string(),
  hub_version: z.string(),
  postgres: z.object({ server_version: z.string(), pg_dump: z.string() }),
  /** The newest migration applied in the dumped snapshot (schema_migrations.version). */
  migration: z.string(),
  /** The image folder's store id (images/store-id), or null when the hub never stored an image. */
  image_store: z.string().nullable(),
  /** Counted in the dumped snapshot: what a restore must bring back. */
  counts: z.object({ collectors: z.number().int().min(0), detections: z.number().int().min(0) }),
  files: z.array(manifestFileSchema),
});
export type Manifest = z.infer<typeof manifestSchema>;

/**
 * Pure: what is wrong with the files found against the manifest's list (`found`: path to
 * size and hash as read now). Files the manifest does not list are ignored (an operator's
 * notes beside the backup); a missing, resized or altered one is a problem.
 */
export function fileProblems(expected: readonly ManifestFile[], found: ReadonlyMap<string, { bytes: number; sha256: string } | undefined>): string[] {
  const problems: string[] = [];
  for (const file of expected) {
    const actual = found.get(file.path);
    if (!actual) problems.push(`${file.path}: missing`);
    else if (actual.bytes !== file.bytes) problems.push(`${file.path}: ${actual.bytes} bytes, the manifest says ${file.bytes}`);
    else if (actual.sha256 !== file.sha256) problems.push(`${file.path}: SHA-256 differs from the manifest`);
  }
  if (!expected.some((f) => f.path === DUMP_FILE)) problems.push(`${DUMP_FILE}: not listed in the manifest`);
  return problems;
}
