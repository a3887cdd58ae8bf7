import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { DbSession } from '../db/session.ts';
import { claimSealedSegment } from './locations.ts';
import { ifMissing } from './missing.ts';
import { readRecord } from './segment-reader.ts';
import { encodeRecords, newSegmentId, segmentName, syncDirectory, type JournalEntry } from './segment-files.ts';
import { writeFully } from './write-fully.ts';

/**
 * Segment compaction (docs/retention.md "Images"; ADR 0004): retention forgets locations in
 * its transaction; this makes the bytes go. Run after that transaction commits:
 *  - a sealed segment with no live location is deleted (row, then file);
 *  - a sealed segment marked dirty (retention forgot a location in it) that still holds
 *    live images (under a legal hold, or shared with a younger detection) has them
 *    rewritten into a new segment: written and flushed, their rows moved in one
 *    transaction; the old segment, now with nothing live, is then deleted as above (a
 *    crash in between leaves it for the next run, which deletes it the same way).
 * A file is unlinked before its row is deleted, so no file is ever left without a row
 * that leads compaction back to it.
 * Segments fill in arrival order, so most expire whole; the rewrite copies held images only.
 * Only segments sealed longer than `graceMs` are touched: an upload's transaction commits
 * its locations within moments of the append, so a just-sealed segment with no row yet may
 * be about to get some.
 */
/** A location in segment `s` (alias of image_segments) of its store. */
const LIVE = 'SELECT 1 FROM image_locations l WHERE l.store = s.store AND l.segment = s.id';

export interface CompactionReport {
  /** Segments deleted because nothing in them was live. */
  deleted: number;
  /** Dirty segments whose live images were copied out before deletion. */
  rewritten: number;
  /** Images copied by those rewrites. */
  moved: number;
  /** Segments kept because a live record in them no longer matched its hash (logged by the caller). */
  damaged: number[];
  /** Segments left for the next run by an error. */
  failed: { segment: number; error: string }[];
}

/** A report of nothing done yet. */
export const emptyCompactionReport = (): CompactionReport => ({ deleted: 0, rewritten: 0, moved: 0, damaged: [], failed: [] });

export async function compactSegments(db: DbSession, store: string, dir: string, options: { graceMs: number }): Promise<CompactionReport> {
  const report = emptyCompactionReport();
  const due = await db.sql<{ id: string | number; dirty: boolean; live: boolean }>(
    `SELECT s.id, s.dirty, EXISTS (${LIVE}) AS live
       FROM image_segments s
      WHERE s.store = $2 AND s.sealed_at < now() - make_interval(secs => $1::double precision / 1000)
        AND (s.dirty OR NOT EXISTS (${LIVE}))
      ORDER BY s.id`,
    [options.graceMs, store],
  );
  for (const row of due) {
    const id = Number(row.id);
    try {
      if (!row.live) {
        if (await dropSegment(db, store, dir, id)) report.deleted += 1;
      } else {
        const moved = await rewriteSegment(db, store, dir, id);
        if (moved === 'damaged') report.damaged.push(id);
        else if (moved !== undefined) {
          report.rewritten += 1;
          report.moved += moved;
        }
      }
    } catch (error) {
      // One segment's failure (disk full, database gone) leaves it for the next run, as it
      // was; the others are still compacted.
      report.failed.push({ segment: id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return report;
}

/**
 * Deletes a segment with no live location: under its row's lock (a rewrite elsewhere waits),
 * checked again, the file unlinked, then the row. If the commit fails after the unlink, the
 * row stays and the next run finds no file and deletes the row.
 */
async function dropSegment(db: DbSession, store: string, dir: string, id: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.sql(`SELECT s.id FROM image_segments s WHERE s.store = $1 AND s.id = $2 AND NOT EXISTS (${LIVE}) FOR UPDATE`, [store, id]);
    if (!row) return false;
    await unlinkIfThere(join(dir, segmentName(id)));
    await tx.sql(`DELETE FROM image_segments WHERE store = $1 AND id = $2`, [store, id]);
    return true;
  });
}

/**
 * Copies a dirty segment's live records into a new segment and deletes the old one.
 * Returns how many moved, `undefined` when another compaction got there first, `damaged`
 * when a live record no longer matches its hash (the segment is kept as it is).
 */
async function rewriteSegment(db: DbSession, store: string, dir: string, id: number): Promise<number | 'damaged' | undefined> {
  const live = await db.sql<{ arrival_week: number; h: string; byte_offset: string | number; size: number }>(
    `SELECT arrival_week, encode(sha256, 'hex') AS h, byte_offset, size FROM image_locations WHERE store = $1 AND segment = $2 ORDER BY byte_offset`,
    [store, id],
  );
  const entries: (JournalEntry & { week: number })[] = [];
  // Gone: another compaction (the hub's beside the retention command's) got there first.
  const old = await ifMissing(open(join(dir, segmentName(id)), 'r'), undefined);
  if (!old) return undefined;
  try {
    for (const row of live) {
      const bytes = await readRecord(old, { sha256: row.h, store, segment: id, offset: Number(row.byte_offset), size: row.size });
      if (!bytes) return 'damaged';
      entries.push({ sha256: row.h, bytes, week: row.arrival_week });
    }
  } finally {
    await old.close();
  }

  const { chunks, byteLength, locations } = encodeRecords(entries, 0);
  const { id: newId, path, handle } = await claimNewSegment(db, store, dir);
  try {
    await writeFully(handle, chunks, byteLength, 0);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await syncDirectory(dir);

  const moved = await db.transaction(async (tx) => {
    const [still] = await tx.sql(`SELECT id FROM image_segments WHERE store = $1 AND id = $2 FOR UPDATE`, [store, id]);
    if (!still) return undefined;
    const updated = await tx.sql(
      `UPDATE image_locations l SET segment = $1, byte_offset = m.o
         FROM unnest($2::int[], $3::text[], $4::bigint[]) AS m(w, h, o)
        WHERE l.arrival_week = m.w AND l.sha256 = decode(m.h, 'hex') AND l.store = $6 AND l.segment = $5
        RETURNING l.size`,
      [newId, entries.map((e) => e.week), locations.map((l) => l.sha256), locations.map((l) => l.offset), id, store],
    );
    // Some were forgotten meanwhile (a retention run beside this one): their copies in the
    // new segment are garbage, so it is marked for the next compaction.
    if (updated.length < entries.length) await tx.sql(`UPDATE image_segments SET dirty = true WHERE store = $1 AND id = $2`, [store, newId]);
    return entries.length;
  });
  if (moved === undefined) {
    await db.sql(`DELETE FROM image_segments WHERE store = $1 AND id = $2`, [store, newId]);
    await unlinkIfThere(path);
    return undefined;
  }
  await dropSegment(db, store, dir, id);
  return moved;
}

/**
 * A new segment for a rewrite: its row claimed first (sealed: nothing appends to it), then
 * its file created exclusively. An id whose row or file exists (the writer's segment whose
 * registration is still queued has a file and no row) is given back and another drawn.
 */
async function claimNewSegment(db: DbSession, store: string, dir: string): Promise<{ id: number; path: string; handle: FileHandle }> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const id = newSegmentId();
    if (!(await claimSealedSegment(db, store, id))) continue;
    const path = join(dir, segmentName(id));
    try {
      return { id, path, handle: await open(path, 'wx', 0o640) };
    } catch (error) {
      // Only the row claimed here (still sealed): the writer's registration, if it ran
      // meanwhile, reopened it and keeps it.
      await db.sql(`DELETE FROM image_segments WHERE store = $1 AND id = $2 AND sealed_at IS NOT NULL`, [store, id]);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error('no free segment id after 20 draws');
}

async function unlinkIfThere(path: string): Promise<void> {
  await ifMissing(unlink(path), undefined);
}
