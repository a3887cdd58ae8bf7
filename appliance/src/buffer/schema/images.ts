import { sqliteTable, integer, text, blob, primaryKey } from 'drizzle-orm/sqlite-core';
import { IMAGE_KINDS } from '@alpr/shared/detection/schema';
import { detections } from './detections.ts';

/**
 * Image bytes of a buffered detection, one row per kind. Kept apart from `detections` so
 * the disk cap can evict images (the heavy part, ~85 KB a detection) before metadata.
 * A rowid table on purpose: WITHOUT ROWID suits rows far smaller than a page, not blobs.
 */
export const images = sqliteTable(
  'images',
  {
    seq: integer('seq')
      .notNull()
      .references(() => detections.seq, { onDelete: 'cascade' }),
    kind: text('kind', { enum: IMAGE_KINDS }).notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seq, t.kind] })],
);

export const IMAGES_DDL = `
CREATE TABLE IF NOT EXISTS images (
  seq INTEGER NOT NULL REFERENCES detections (seq) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('full_scene', 'plate_crop')),
  bytes BLOB NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size > 0),
  PRIMARY KEY (seq, kind)
);
`;
