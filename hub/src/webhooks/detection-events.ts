/**
 * Detection events (docs/webhooks.md "Detection events"): every stored detection that passes
 * a target's filter becomes one `detection.stored` delivery for each enabled target that asked
 * for `detection`. Ingest is not touched: a cursor (webhook_detection_cursor, 0032) walks the
 * detections in id order up to a settled horizon (detection-horizon.ts), and one transaction
 * locks the cursor, queues a page's deliveries and moves the cursor. A crash before the commit
 * leaves both as they were and the page is read again; after it, the page is done. The unique
 * `(target_id, event_key)` makes even a cursor moved back queue nothing twice.
 * Only targets that exist when a page is read get its events: a new target gets no backlog.
 */
import { cameraName } from '../alerts/payload.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';
import { WEBHOOK_CHANNEL } from '../db/channels.ts';
import type { DbSession, StatementSession } from '../db/session.ts';
import { insertDeliveries, type Queued } from './enqueue.ts';
import { collectorSites } from './collector-sites.ts';
import { filterMatches, type WebhookFilter } from './filter.ts';
import { detectionBody, type DetectionEventRow } from './payload.ts';
import { newMessageId } from './sign.ts';

/**
 * 500 detections a transaction: a page's deliveries (at most 500 per target) go in as one
 * statement, and the cursor row stays locked for well under a second.
 */
export const DETECTION_PAGE_SIZE = 500;

/** A detection has no watchlist: a target filtered by list hears no detection events. */
export function detectionFilterMatches(
  filter: WebhookFilter,
  row: Pick<DetectionEventRow, 'plate_normalized' | 'collector_id' | 'camera_id'>,
  siteId?: string,
): boolean {
  if (filter.watchlist_id !== undefined) return false;
  return filterMatches(filter, {
    plate: row.plate_normalized,
    collectorId: row.collector_id,
    cameraId: row.camera_id,
    ...(siteId === undefined ? {} : { siteId }),
  });
}

export interface PageOutcome {
  /** Another worker holds the cursor: nothing was done. */
  busy: boolean;
  /** Detections read (0 when no target wants detection events: the cursor just moves). */
  read: number;
  queued: number;
  /** The cursor reached `upTo`. */
  done: boolean;
}

/** One page: detections after the cursor up to `upTo` (a settled horizon), queued in one transaction. */
export async function queueDetectionPage(db: DbSession, upTo: string, now: Date, pageSize = DETECTION_PAGE_SIZE): Promise<PageOutcome> {
  return db.transaction(async (tx) => {
    // SKIP LOCKED: a second worker on the same database leaves the page to the first.
    const [cursor] = await tx.sql<{ last_pk: string }>(`SELECT last_pk::text AS last_pk FROM webhook_detection_cursor WHERE id FOR UPDATE SKIP LOCKED`);
    if (!cursor) return { busy: true, read: 0, queued: 0, done: false };
    if (BigInt(cursor.last_pk) >= BigInt(upTo)) return { busy: false, read: 0, queued: 0, done: true };
    const targets = await tx.sql<{ id: string; filter: WebhookFilter }>(
      `SELECT id::text AS id, filter FROM webhook_targets WHERE enabled AND 'detection' = ANY (events) ORDER BY created_at, id`,
    );
    if (targets.length === 0) {
      await moveCursor(tx, upTo, now);
      return { busy: false, read: 0, queued: 0, done: true };
    }
    const keys = await tx.sql<{ pk: string }>(
      `SELECT detection_pk::text AS pk FROM detection_keys WHERE detection_pk > $1::bigint AND detection_pk <= $2::bigint ORDER BY detection_pk LIMIT $3`,
      [cursor.last_pk, upTo, pageSize],
    );
    const full = keys.length === pageSize;
    const last = full ? (keys[keys.length - 1]?.pk ?? upTo) : upTo;
    const rows = keys.length === 0 ? [] : await readDetections(tx, cursor.last_pk, last);
    const sites = await collectorSites(
      tx,
      targets.map((t) => t.filter),
      rows.map((r) => r.collector_id),
    );
    const items: Queued[] = [];
    for (const row of rows) {
      const body = detectionBody(row, now);
      for (const target of targets) {
        if (!detectionFilterMatches(target.filter ?? {}, row, sites.get(row.collector_id))) continue;
        items.push({ target_id: target.id, message_id: newMessageId(), event_type: 'detection.stored', event_key: `detection:${row.pk}`, body });
      }
    }
    const queued = await insertDeliveries(tx, items, now);
    await moveCursor(tx, last, now);
    if (queued > 0) await tx.sql(`SELECT pg_notify($1, $2)`, [WEBHOOK_CHANNEL, 'detections']);
    return { busy: false, read: rows.length, queued, done: !full };
  });
}

async function moveCursor(tx: StatementSession, to: string, now: Date): Promise<void> {
  await tx.sql(`UPDATE webhook_detection_cursor SET last_pk = $1::bigint, updated_at = $2::timestamptz WHERE id`, [to, now.toISOString()]);
}

/** The detections with ids in (after, upTo], oldest id first, with site and camera names. */
async function readDetections(tx: StatementSession, after: string, upTo: string): Promise<DetectionEventRow[]> {
  // Through detection_keys: its unique index finds the ids, and (id, captured_at) prunes the
  // partitioned detections to one partition per row.
  const rows = await tx.sql<Omit<DetectionEventRow, 'collector_name' | 'camera_name'>>(
    `SELECT k.detection_pk::text AS pk, d.detection_id, d.plate_number AS plate, d.plate_normalized, d.confidence, d.captured_at, d.received_at,
            d.collector_id::text AS collector_id, d.camera_id
     FROM detection_keys k JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
     WHERE k.detection_pk > $1::bigint AND k.detection_pk <= $2::bigint ORDER BY k.detection_pk`,
    [after, upTo],
  );
  if (rows.length === 0) return [];
  // Names once per collector of the page, not once per detection.
  const collectors = await tx.sql<{ id: string; site_name: string; config: Record<string, unknown> | string }>(
    `SELECT c.id::text AS id, c.site_name, ${configWithCameraNames('c')} AS config FROM collectors c
     WHERE c.id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
    [JSON.stringify([...new Set(rows.map((r) => r.collector_id))])],
  );
  const byId = new Map(
    collectors.map((c) => [c.id, { name: c.site_name, config: typeof c.config === 'string' ? (JSON.parse(c.config) as Record<string, unknown>) : c.config }]),
  );
  return rows.map((r) => {
    const collector = byId.get(r.collector_id);
    return { ...r, collector_name: collector?.name ?? '', camera_name: cameraName(collector?.config ?? {}, r.camera_id) };
  });
}
