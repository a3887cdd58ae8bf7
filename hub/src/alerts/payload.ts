/**
 * The `alert` payload (docs/live.md), built once per alert for the
 * REST list and the live channel alike (docs/alerts.md "Payload"). Image links are signed
 * at build time and expire (platform/signed-links/signed-link.ts).
 */
import type { DbSession } from '../db/session.ts';
import type { AlertEntrySnapshot, AlertMatchKind, AlertState, AlertVerification } from '../db/schema/alerts.ts';
import { imageLink, type LinkSigner } from '../platform/signed-links/signed-link.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';

export interface AlertPayload {
  alert_id: string;
  detection_id: string;
  plate_number: string;
  watchlist: { id: string; name: string; priority: string };
  entry: { notes: string | null; added_by: string | null; added_at: string | null };
  detection: {
    captured_at: string;
    confidence: number;
    collector_name: string;
    camera_name: string;
    image_urls: { full: string | null; crop: string | null };
  };
  /**
   * Present (true) only on a historical hit: a read stored before its entry was added,
   * found by a feed's retro-hunt (docs/watchlists.md "Retro-hunt"). Absent on live alerts.
   */
  historical?: true;
  /**
   * The list's rule in words when it has one (docs/watchlists.md "Scopes"): "allow-list, Gate
   * B, entering, Mon-Fri 22:00-06:00 Europe/Paris". Absent for a list without a rule.
   */
  matched_scope?: string;
}

export interface AlertVerificationRecord {
  /** The watchlist asks for a person's confirmation before the alert counts as actionable. */
  required: boolean;
  state: AlertVerification;
  /** Required and not yet confirmed: the live page and the bot say "unverified". */
  unverified: boolean;
  /** Not required, or confirmed. A misread alert is never actionable. */
  actionable: boolean;
  by: string | null;
  by_email: string | null;
  at: string | null;
  note: string | null;
}

/**
 * What the REST list adds for the dashboard: when, how it matched, what the operator
 * compares (the plate as listed, who added it, the camera's other readings), the
 * verification, and who handled it. The live `alert` message keeps to the payload above;
 * the live page fetches this record for each alert it is sent (docs/live.md).
 */
export interface AlertRecord extends AlertPayload {
  entry: AlertPayload['entry'] & { plate_number: string | null; added_by_email: string | null };
  detection: AlertPayload['detection'] & {
    /** The camera's other readings of the plate, where its vendor sends them (docs/protocol.md "plate.candidates"). */
    candidates: Array<{ text: string; confidence?: number }>;
  };
  created_at: string;
  match_kind: AlertMatchKind;
  /** A `one_edit` alert: how the read differs from the entry (docs/watchlists.md "Forgive one misread"). */
  match_detail?: NonNullable<AlertEntrySnapshot['match']>;
  verification: AlertVerificationRecord;
  state: AlertState;
  handled_by: string | null;
  handled_at: string | null;
  /** Repeats of this plate at the same site the messaging bot folded into this alert's message (docs/messaging.md). */
  folded_repeats: number;
  last_folded_at: string | null;
}

export type AlertRow = {
  id: string;
  detection_id: string;
  /** Whose site the read is at: the live channel sends an alert only inside a listener's sites. */
  collector_id: string;
  watchlist_id: string;
  created_at: Date;
  match_kind: AlertMatchKind;
  entry_snapshot: AlertEntrySnapshot;
  state: AlertState;
  handled_by: string | null;
  handled_at: Date | null;
  verification: AlertVerification;
  verified_by: string | null;
  verified_by_email: string | null;
  verified_at: Date | null;
  verification_note: string | null;
  verification_required: boolean;
  historical: boolean;
  added_by_email: string | null;
  plate_candidates: Array<{ text: string; confidence?: number }> | null;
  watchlist_name: string;
  priority: string;
  folded_repeats: number | string | null;
  last_folded_at: Date | null;
  plate_number: string;
  captured_at: Date;
  confidence: number;
  camera_id: string;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  site_name: string;
  collector_config: Record<string, unknown>;
};

/** Columns and joins every alert query shares; `a` is alerts. */
export const ALERT_SELECT = `
  SELECT a.id, a.detection_id, a.watchlist_id, a.created_at, a.match_kind, a.entry_snapshot, a.state, a.handled_by, a.handled_at,
         a.verification, a.verified_by, vu.email AS verified_by_email, a.verified_at, a.verification_note, a.historical,
         w.verification_required, au.email AS added_by_email,
         w.name AS watchlist_name, w.priority,
         d.plate_number, d.captured_at, d.confidence, d.camera_id, d.full_image_hash, d.crop_image_hash, d.plate_candidates,
         d.collector_id, c.site_name, ${configWithCameraNames('c')} AS collector_config,
         f.folded_repeats, f.last_folded_at
  FROM alerts a
  LEFT JOIN alert_folded_repeats f ON f.alert_id = a.id
  LEFT JOIN users vu ON vu.id = a.verified_by
  LEFT JOIN users au ON au.id::text = a.entry_snapshot->>'added_by'
  JOIN watchlists w ON w.id = a.watchlist_id
  JOIN detection_keys k ON k.detection_pk = a.detection_id
  JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
  JOIN collectors c ON c.id = d.collector_id`;

/**
 * A text field of a configured camera (`config.cameras[]` with this id): the first entry that
 * has it non-empty. An id may stand twice, in the admin's own list and among the central
 * cameras (collectors/cameras/names-sql.ts appends them), so later entries fill what earlier ones lack.
 */
function cameraField(config: Record<string, unknown>, cameraId: string, field: 'name' | 'timezone'): string | undefined {
  const cameras = Array.isArray(config.cameras) ? config.cameras : [];
  for (const camera of cameras) {
    if (camera && typeof camera === 'object' && (camera as { id?: unknown }).id === cameraId) {
      const value = (camera as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.trim() !== '') return value;
    }
  }
  return undefined;
}

/**
 * A camera's name as the admin configured it for the collector (`config.cameras[].name`),
 * else the identifier the appliance sent: vendor codes are what an operator would
 * otherwise see, so the configured name wins whenever there is one.
 */
export function cameraName(config: Record<string, unknown>, cameraId: string): string {
  return cameraField(config, cameraId, 'name') ?? cameraId;
}

/**
 * The IANA zone of a camera's clock as its record on the hub says (central cameras,
 * docs/cameras-central.md; `timezone` of a configured camera), or null when none is known.
 * Capture times are stored in UTC; this is for showing local time beside them.
 */
export function cameraTimeZone(config: Record<string, unknown>, cameraId: string): string | null {
  return cameraField(config, cameraId, 'timezone') ?? null;
}

/**
 * The one rule for "unverified" (docs/alerts.md "Verification"): the list asks for a second
 * look (a list from before the setting counts as asking) and nobody has confirmed the read.
 * The live page, the alert API and the bot's messages all say it from here.
 */
export function isUnverified(row: { verification: string; verification_required: boolean | null }): boolean {
  return row.verification_required !== false && row.verification !== 'confirmed';
}

/** Pure: the verification part of an alert from its row (docs/alerts.md "Verification"). */
export function verificationRecord(
  row: Pick<AlertRow, 'verification' | 'verified_by' | 'verified_by_email' | 'verified_at' | 'verification_note' | 'verification_required'>,
): AlertVerificationRecord {
  const required = row.verification_required !== false;
  return {
    required,
    state: row.verification,
    unverified: isUnverified(row),
    actionable: row.verification === 'confirmed' || (!required && row.verification !== 'misread'),
    by: row.verified_by,
    by_email: row.verified_by_email,
    at: row.verified_at ? new Date(row.verified_at).toISOString() : null,
    note: row.verification_note,
  };
}

export function alertPayload(row: AlertRow, signer: LinkSigner): AlertPayload {
  return {
    alert_id: String(row.id),
    detection_id: String(row.detection_id),
    plate_number: row.plate_number,
    watchlist: { id: row.watchlist_id, name: row.watchlist_name, priority: row.priority },
    entry: { notes: row.entry_snapshot.notes ?? null, added_by: row.entry_snapshot.added_by ?? null, added_at: row.entry_snapshot.added_at ?? null },
    detection: {
      captured_at: new Date(row.captured_at).toISOString(),
      confidence: Number(row.confidence),
      collector_name: row.site_name,
      camera_name: cameraName(row.collector_config ?? {}, row.camera_id),
      image_urls: { full: imageLink(signer, row.full_image_hash), crop: imageLink(signer, row.crop_image_hash) },
    },
    ...(row.historical === true ? { historical: true as const } : {}),
    ...(typeof row.entry_snapshot.scope === 'string' ? { matched_scope: row.entry_snapshot.scope } : {}),
  };
}

export function alertRecord(row: AlertRow, signer: LinkSigner): AlertRecord {
  const payload = alertPayload(row, signer);
  return {
    ...payload,
    entry: { ...payload.entry, plate_number: row.entry_snapshot.plate_number ?? null, added_by_email: row.added_by_email },
    detection: { ...payload.detection, candidates: Array.isArray(row.plate_candidates) ? row.plate_candidates : [] },
    created_at: new Date(row.created_at).toISOString(),
    match_kind: row.match_kind,
    ...(row.entry_snapshot.match ? { match_detail: row.entry_snapshot.match } : {}),
    verification: verificationRecord(row),
    state: row.state,
    handled_by: row.handled_by,
    handled_at: row.handled_at ? new Date(row.handled_at).toISOString() : null,
    folded_repeats: Number(row.folded_repeats ?? 0),
    last_folded_at: row.last_folded_at ? new Date(row.last_folded_at).toISOString() : null,
  };
}

/** Alerts by id (the live channel's fetch after a NOTIFY: once per process, not per client). */
export async function alertRowsById(db: DbSession, ids: readonly string[]): Promise<AlertRow[]> {
  if (ids.length === 0) return [];
  return db.sql<AlertRow>(`${ALERT_SELECT} WHERE a.id IN (SELECT value::bigint FROM json_array_elements_text($1::json)) ORDER BY a.id`, [JSON.stringify(ids)]);
}
