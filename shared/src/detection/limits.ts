/**
 * The longest plate, in characters (code points), written once: the hub stores
 * `plate_number` and `plate_normalized` as varchar(20) (detections, watchlist entries, the
 * search keys), so ingest, watchlists, OCR folding and the bot's messages all stop there.
 */
export const MAX_PLATE_LENGTH = 20;
