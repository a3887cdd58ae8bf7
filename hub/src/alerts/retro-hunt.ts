/**
 * Retro-hunt (docs/watchlists.md "Retro-hunt"): when plates are added to a list, the reads of
 * the last N days are searched for them and each match raises a "historical hit" alert.
 * Runs inside the transaction that adds the entries, so the entries and their historical
 * alerts commit together; the unique (detection, watchlist) pair makes a rerun raise none
 * again. Matching is the live matcher's (exact, OCR-tolerant, one misread, as the list says).
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import { deletionNeighbourhood } from '@alpr/shared/detection/one-edit';
import type { DbSession } from '../db/session.ts';
import { unkeyedPlatesSql } from '../db/unkeyed-reads.ts';
import { MAX_RETRO_HUNT_DAYS, type HuntEntry, type HuntList, type RetroHunt } from '../watchlists/hunt.ts';
import { buildWatchlistIndex, matchPlate, type IndexedEntry } from '../watchlists/match.ts';
import type { AlertHooks, RaisedAlert } from './hooks.ts';
import { insertAlerts, type AlertCandidate } from './raise.ts';

const DAY_MS = 86_400_000;

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
    // Plus the plates of the hunt's reads whose keys the builder has not written yet
    // (db/unkeyed-reads.ts), in the same statement: one snapshot for the cursor and the keys.
    const near = await tx.sql<{ plate_normalized: string }>(
      `SELECT plate_normalized FROM plate_edit_keys WHERE edit_key IN (SELECT value FROM json_array_elements_text($1::json))
       UNION
       ${unkeyedPlatesSql(`u.captured_at >= $2::timestamptz AND u.captured_at <= $3::timestamptz`)}`,
      [JSON.stringify([...keys]), new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()],
    );
    for (const r of near) if (matchPlate(index, r.plate_normalized, now).length > 0) plates.add(r.plate_normalized);
  }
  const reads = await tx.sql<{ id: string; plate_normalized: string }>(
    `SELECT d.id, d.plate_normalized FROM detections d
     WHERE d.plate_normalized IN (SELECT value FROM json_array_elements_text($1::json))
       AND d.captured_at >= $2::timestamptz AND d.captured_at <= $3::timestamptz`,
    [JSON.stringify([...plates]), new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()],
  );
  const candidates: AlertCandidate[] = [];
  for (const read of reads) {
    for (const match of matchPlate(index, read.plate_normalized, now)) candidates.push({ detectionPk: String(read.id), plate: read.plate_normalized, match });
  }
  return insertAlerts(tx, candidates, { now, historical: true, hooks: options.hooks });
}

/** The retro-hunt as watchlists ask for it (watchlists/hunt.ts), its hits heard through `hooks`. */
export function retroHuntWith(hooks: AlertHooks | undefined): RetroHunt {
  return (tx, list, entries, options) => retroHunt(tx, list, entries, { ...options, hooks });
}
