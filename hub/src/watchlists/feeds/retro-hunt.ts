/**
 * Retro-hunt (docs/watchlists.md "Retro-hunt"): when plates are added to a list, the reads of
 * the last N days are searched for them and each match raises a "historical hit" alert.
 * Runs inside the transaction that adds the entries, so the entries and their historical
 * alerts commit together; the unique (detection, watchlist) pair makes a rerun raise none
 * again. Matching is the live matcher's (exact, OCR-tolerant, one misread, as the list says).
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import type { AlertHooks, RaisedAlert } from '../../alerts/hooks.ts';
import { ALERT_CHANNEL } from '../../db/channels.ts';
import type { DbSession } from '../../db/session.ts';
import type { WatchlistPriority } from '../../db/schema/watchlists.ts';
import { deletionNeighbourhood } from '../../search/one-edit.ts';
import { buildWatchlistIndex, matchPlate, type IndexedEntry } from '../match.ts';

/** At most 30 days back: a month of reads is what a busy hub searches in seconds. */
export const MAX_RETRO_HUNT_DAYS = 30;
export const DEFAULT_RETRO_HUNT_DAYS = 7;
const DAY_MS = 86_400_000;
/** One notification carries at most this many ids, like the live matcher's. */
const MAX_NOTIFY_IDS = 500;

export interface HuntList {
  id: string;
  name: string;
  priority: WatchlistPriority;
  ocrTolerant: boolean;
  forgiveOneMisread: boolean;
}

export interface HuntEntry {
  id: string;
  plate: string;
  key: string;
  notes: string | null;
  addedBy: string | null;
  addedAt: Date;
  expiresAt: Date | null;
  priority: WatchlistPriority | null;
}

export async function retroHunt(
  tx: DbSession,
  list: HuntList,
  entries: readonly HuntEntry[],
  options: { days: number; now: Date; hooks?: AlertHooks | undefined },
): Promise<RaisedAlert[]> {
  const days = Math.min(Math.max(0, Math.floor(options.days)), MAX_RETRO_HUNT_DAYS);
  if (days === 0 || entries.length === 0) return [];
  const now = options.now;
  const indexed: IndexedEntry[] = entries.map((e) => ({
    entryId: e.id,
    watchlistId: list.id,
    watchlistName: list.name,
    priority: list.priority,
    ocrTolerant: list.ocrTolerant,
    forgiveOneMisread: list.forgiveOneMisread,
    plateNumber: e.plate,
    plateNormalized: e.key,
    notes: e.notes,
    addedBy: e.addedBy,
    addedAt: e.addedAt,
    expiresAt: e.expiresAt,
    entryPriority: e.priority,
  }));
  const index = buildWatchlistIndex(indexed);
  const plates = new Set(entries.map((e) => e.key));
  if (list.ocrTolerant || list.forgiveOneMisread) {
    // Plates seen one confusion or one edit away, through the deletion neighbourhoods of
    // every distinct plate's confusion key (0025): an index probe per key, not a scan.
    const keys = new Set<string>();
    for (const e of entries) for (const k of deletionNeighbourhood(confusionKey(e.key))) keys.add(k);
    const near = await tx.sql<{ plate_normalized: string }>(
      `SELECT DISTINCT plate_normalized FROM plate_edit_keys WHERE edit_key IN (SELECT value FROM json_array_elements_text($1::json))`,
      [JSON.stringify([...keys])],
    );
    for (const r of near) if (matchPlate(index, r.plate_normalized, now).length > 0) plates.add(r.plate_normalized);
  }
  const reads = await tx.sql<{ id: string; plate_normalized: string }>(
    `SELECT d.id, d.plate_normalized FROM detections d
     WHERE d.plate_normalized IN (SELECT value FROM json_array_elements_text($1::json))
       AND d.captured_at >= $2::timestamptz AND d.captured_at <= $3::timestamptz`,
    [JSON.stringify([...plates]), new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()],
  );
  const rows = [];
  for (const read of reads) {
    for (const m of matchPlate(index, read.plate_normalized, now)) {
      rows.push({
        detection_id: String(read.id),
        entry_id: m.entry.entryId,
        match_kind: m.kind,
        entry: {
          plate_number: m.entry.plateNumber,
          notes: m.entry.notes,
          added_by: m.entry.addedBy,
          added_at: m.entry.addedAt.toISOString(),
          ...(m.entry.entryPriority ? { priority: m.entry.entryPriority } : {}),
          ...(m.edit ? { match: { kind: m.edit.kind, position: m.edit.position, entry_char: m.edit.queryChar, read_char: m.edit.plateChar } } : {}),
        },
      });
    }
  }
  if (rows.length === 0) return [];
  const inserted = await tx.sql<{ id: string; detection_id: string }>(
    `INSERT INTO alerts (detection_id, watchlist_id, watchlist_entry_id, match_kind, entry_snapshot, created_at, historical)
     SELECT v.detection_id, $2::uuid, v.entry_id, v.match_kind, v.entry, $3::timestamptz, true
     FROM json_to_recordset($1::json) AS v (detection_id bigint, entry_id uuid, match_kind text, entry jsonb)
     JOIN watchlists w ON w.id = $2::uuid AND w.is_active AND w.deleted_at IS NULL
     JOIN detection_keys k ON k.detection_pk = v.detection_id
     ORDER BY v.detection_id
     ON CONFLICT (detection_id, watchlist_id) DO NOTHING
     RETURNING id, detection_id`,
    [JSON.stringify(rows), list.id, now.toISOString()],
  );
  const byRead = new Map(reads.map((r) => [String(r.id), r.plate_normalized]));
  const raised: RaisedAlert[] = inserted.map((r) => ({
    id: String(r.id),
    detectionPk: String(r.detection_id),
    watchlistId: list.id,
    plate: byRead.get(String(r.detection_id)) ?? '',
  }));
  await options.hooks?.raisedInTransaction(tx, raised, now);
  for (let i = 0; i < raised.length; i += MAX_NOTIFY_IDS) {
    await tx.sql(`SELECT pg_notify('${ALERT_CHANNEL}', $1::text)`, [JSON.stringify({ ids: raised.slice(i, i + MAX_NOTIFY_IDS).map((a) => a.id) })]);
  }
  return raised;
}
