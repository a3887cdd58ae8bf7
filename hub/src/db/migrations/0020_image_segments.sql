-- 0020: images stay in the segment files they were appended to (docs/adr/0004, docs/ingest.md
-- "Image segments"). `store` names the image folder (its `store-id` file: several hub
-- processes may share a database, each with its own folder); `id` is the segment file's
-- name in it. `sealed_at` is set once it takes no more appends; `dirty` once retention
-- removed a location in it (compaction then rewrites its live records elsewhere, so a
-- removed image's bytes leave the disk).
CREATE TABLE IF NOT EXISTS image_segments (
  store      uuid NOT NULL,
  id         bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sealed_at  timestamptz,
  dirty      boolean NOT NULL DEFAULT false,
  PRIMARY KEY (store, id)
);

-- Where each image's bytes are, inserted in the upload's own transaction (after the segment's
-- flush, before COMMIT): a committed detection names a readable image by construction. Every
-- copy in a different segment gets its row (an upload retried after a lost answer appends
-- the image again), so retention finds, and compaction deletes, every copy.
-- Keyed by arrival week first so the inserts of a week touch one small, hot part of the
-- index (random hashes over a year-sized key cost a full-page WAL write each, measured in the
-- ADR); a read by hash probes each week kept. No foreign key to image_segments: it would cost
-- every upload a lookup, and compaction keeps the two consistent.
CREATE TABLE IF NOT EXISTS image_locations (
  arrival_week integer NOT NULL,
  sha256       bytea NOT NULL,
  store        uuid NOT NULL,
  segment      bigint NOT NULL,
  byte_offset  bigint NOT NULL,
  size         integer NOT NULL,
  PRIMARY KEY (arrival_week, sha256, store, segment)
);
CREATE INDEX IF NOT EXISTS image_locations_segment_idx ON image_locations (store, segment);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- The same rights 0008 gives every table, so re-running 0008 changes nothing.
    GRANT SELECT, INSERT, UPDATE, DELETE ON image_segments, image_locations TO alpr_app;
  END IF;
END
$$;
