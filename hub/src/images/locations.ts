import type { DbSession, StatementSession } from '../db/session.ts';

/**
 * The image location index and the segment registry (migration 0020; docs/ingest.md "Image
 * segments"). SQL only: the files are segment-files.ts's, the policy compaction.ts's.
 * Hashes travel as hex text and are stored as 32-byte bytea. `store` is the image folder's
 * id (image-store.ts): hub processes sharing a database each have their own folder.
 */
export interface ImageLocation {
  sha256: string;
  store: string;
  segment: number;
  /** Offset of the image bytes in the segment file (after the record header). */
  offset: number;
  size: number;
}

const WEEK_MS = 7 * 24 * 3600 * 1000;
/** Pure: the arrival week an upload's location rows are keyed by (weeks since the epoch). */
export const arrivalWeek = (at: Date): number => Math.floor(at.getTime() / WEEK_MS);

/**
 * In the upload's transaction, after the segment flush: one statement for the batch. A copy
 * in a segment that already has one this week keeps the first row; the second copy's bytes
 * go when that segment is compacted (a rewrite copies indexed records only).
 */
export async function indexImages(tx: StatementSession, at: Date, locations: readonly ImageLocation[]): Promise<void> {
  if (locations.length === 0) return;
  await tx.sql(
    `INSERT INTO image_locations (arrival_week, sha256, store, segment, byte_offset, size)
     SELECT $1, decode(h, 'hex'), st, s, o, z FROM unnest($2::text[], $3::uuid[], $4::bigint[], $5::bigint[], $6::int[]) AS l(h, st, s, o, z)
     ON CONFLICT DO NOTHING`,
    [
      arrivalWeek(at),
      locations.map((l) => l.sha256),
      locations.map((l) => l.store),
      locations.map((l) => l.segment),
      locations.map((l) => l.offset),
      locations.map((l) => l.size),
    ],
    { prepare: true },
  );
}

/** Every week present: the key leads with the week, so a lookup by hash names them all. */
const EVERY_WEEK = `arrival_week = ANY (ARRAY(SELECT generate_series(
  (SELECT min(arrival_week) FROM image_locations), (SELECT max(arrival_week) FROM image_locations))))`;

/**
 * Where an image is: a copy in `store` first, newest first (one small index probe per week;
 * reads are rare: dashboard, bot, exports).
 */
export async function locateImage(db: DbSession, store: string, sha256: string): Promise<ImageLocation | undefined> {
  const [row] = await db.sql<{ store: string; segment: string | number; byte_offset: string | number; size: number }>(
    `SELECT store::text AS store, segment, byte_offset, size FROM image_locations
      WHERE ${EVERY_WEEK} AND sha256 = decode($1, 'hex')
      ORDER BY (store = $2::uuid) DESC, arrival_week DESC LIMIT 1`,
    [sha256, store],
    { prepare: true },
  );
  return row ? { sha256, store: row.store, segment: Number(row.segment), offset: Number(row.byte_offset), size: row.size } : undefined;
}

/**
 * Retention, in its transaction: forgets every copy of these images (in every store) and
 * marks their segments dirty, so compaction rewrites what else they hold and deletes the
 * removed bytes. Returns the hashes that had a location.
 */
export async function forgetImages(tx: DbSession, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await tx.sql<{ h: string; store: string; segment: string | number }>(
    `DELETE FROM image_locations
      WHERE ${EVERY_WEEK} AND sha256 = ANY (SELECT decode(h, 'hex') FROM unnest($1::text[]) AS u(h))
      RETURNING encode(sha256, 'hex') AS h, store::text AS store, segment`,
    [hashes],
  );
  const segments = [...new Map(rows.map((r) => [`${r.store}/${r.segment}`, r])).values()];
  if (segments.length > 0) {
    // An upsert: a segment whose registration is still queued (or was lost) keeps the mark.
    await tx.sql(
      `INSERT INTO image_segments (store, id, dirty) SELECT store, id, true FROM unnest($1::uuid[], $2::bigint[]) AS d(store, id)
       ON CONFLICT (store, id) DO UPDATE SET dirty = true`,
      [segments.map((r) => r.store), segments.map((r) => r.segment)],
    );
  }
  return new Set(rows.map((r) => r.h));
}

/**
 * The writer registers each segment it creates, in the background, never on an upload's
 * path (on PGlite the upload's transaction holds the only connection). The file was just
 * created exclusively, so a row already there is a stale one (a clock set back to an id
 * whose file is long gone): it starts over as open. A registration a crash lost is made
 * up, sealed, at the writer's next start.
 */
export async function registerOpenSegment(db: DbSession, store: string, id: number): Promise<void> {
  await db.sql(
    `INSERT INTO image_segments (store, id) VALUES ($1, $2)
     ON CONFLICT (store, id) DO UPDATE SET sealed_at = NULL, created_at = now()`,
    [store, id],
  );
}

/** Takes no more appends: compaction may touch it once the grace has passed. */
export async function sealSegment(db: DbSession, store: string, id: number): Promise<void> {
  await db.sql(
    `INSERT INTO image_segments (store, id, sealed_at) VALUES ($1, $2, now())
     ON CONFLICT (store, id) DO UPDATE SET sealed_at = COALESCE(image_segments.sealed_at, now())`,
    [store, id],
  );
}

/**
 * Compaction's own segment, registered sealed (nothing appends to it) before its file is
 * created; false when the id is taken (draw another).
 */
export async function claimSealedSegment(db: DbSession, store: string, id: number): Promise<boolean> {
  const rows = await db.sql(`INSERT INTO image_segments (store, id, sealed_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING RETURNING id`, [store, id]);
  return rows.length > 0;
}

/**
 * At the writer's start, in the background: every segment file already on disk (a previous
 * run's) is registered and sealed, as is every row of this store for a segment created
 * before `before` (a previous run's current or spare segment).
 */
export async function sealLeftoverSegments(db: DbSession, store: string, files: readonly number[], before: number): Promise<void> {
  await db.sql(
    `INSERT INTO image_segments (store, id, sealed_at) SELECT $1, unnest($2::bigint[]), now()
     ON CONFLICT (store, id) DO UPDATE SET sealed_at = COALESCE(image_segments.sealed_at, now())`,
    [store, files],
  );
  await db.sql(`UPDATE image_segments SET sealed_at = now() WHERE store = $1 AND sealed_at IS NULL AND id < $2`, [store, before]);
}
