-- 0012: OCR-aware fuzzy search (docs/search.md). The confusion key of a plate: every
-- character replaced by its OCR confusion group's representative (spec "Search semantics"
-- 3: 0/O/Q/D, 1/I/L/7, 5/S, 8/B, 2/Z, 6/G), the same as shared/src/detection/ocr.ts
-- `confusionKey`. plate_normalized already folds O/Q/D, I/L and S; this folds the rest, so
-- `O8C123` and `0BC123` compare equal and trigram similarity runs over the keys.
CREATE OR REPLACE FUNCTION alpr_confusion_key(plate text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT translate(upper(plate), 'OQDILSBZG7', '0001158261') $$;

CREATE INDEX IF NOT EXISTS detections_confusion_trgm_idx ON detections USING gin (alpr_confusion_key(plate_normalized) gin_trgm_ops);
