/**
 * Webhook targets (docs/admin-api.md "Webhooks"): create (the secret shown once), list, read,
 * edit, rotate the secret, remove. The secret never leaves again: listings show its prefix.
 * It is stored sealed with the hub secret (secret-store.ts), never in clear.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import { refuseUnknownSites } from '../sites/manage.ts';
import type { WebhookFilter } from './filter.ts';
import type { CreateWebhookInput, EditWebhookInput } from './schema.ts';
import { PREFIX_CHARS, sealWebhookSecret } from './secret-store.ts';
import { newSecret } from './sign.ts';
import { isUuid } from '@alpr/shared/validation/uuid';

export interface WebhookContext {
  db: DbSession;
  clock: Clock;
  /** The hub secret seals the signing secrets (platform/secrets/hub-secret.ts). */
  config: HubConfig;
}

export type TargetRow = {
  id: string;
  name: string;
  url: string;
  secret_prefix: string;
  events: string[];
  filter: WebhookFilter;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  last_status: number | null;
  last_error: string | null;
};

const COLUMNS = `id::text AS id, name, url, secret_prefix, events, filter, enabled, created_at, updated_at, last_success_at, last_failure_at, last_status, last_error`;
const isoOrNull = (v: Date | null): string | null => (v ? new Date(v).toISOString() : null);

/** What the API shows of a target: never the secret, only its first characters. */
export function presentTarget(row: TargetRow, counts?: { pending: number; failed: number }) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    filter: row.filter,
    enabled: row.enabled,
    secret_prefix: row.secret_prefix,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    last_success_at: isoOrNull(row.last_success_at),
    last_failure_at: isoOrNull(row.last_failure_at),
    last_status: row.last_status,
    last_error: row.last_error,
    ...(counts ? { pending: counts.pending, failed: counts.failed } : {}),
  };
}

export async function getTarget(db: DbSession, id: string): Promise<TargetRow> {
  const [row] = isUuid(id) ? await db.sql<TargetRow>(`SELECT ${COLUMNS} FROM webhook_targets WHERE id = $1::uuid`, [id]) : [];
  if (!row) throw new HubError('not_found', 'no such webhook target');
  return row;
}

export async function listTargets(db: DbSession): Promise<{ row: TargetRow; pending: number; failed: number }[]> {
  const rows = await db.sql<TargetRow & { pending: number; failed: number }>(
    `SELECT ${COLUMNS},
            (SELECT count(*)::int FROM webhook_deliveries d WHERE d.target_id = t.id AND d.status IN ('pending', 'processing')) AS pending,
            (SELECT count(*)::int FROM webhook_deliveries d WHERE d.target_id = t.id AND d.status = 'failed') AS failed
     FROM webhook_targets t ORDER BY created_at, id`,
  );
  return rows.map((r) => ({ row: r, pending: Number(r.pending), failed: Number(r.failed) }));
}

/** A stored target and its signing secret in clear: the one answer that carries it. */
export interface TargetWithSecret {
  row: TargetRow;
  secret: string;
}

/** A fresh secret and the columns that store it (sealed, and its display prefix). */
function freshSecret(config: HubConfig): { secret: string; ciphertext: Buffer; salt: Buffer; prefix: string } {
  const secret = newSecret();
  const sealed = sealWebhookSecret(config, secret);
  return { secret, ciphertext: sealed.ciphertext, salt: sealed.salt, prefix: secret.slice(0, PREFIX_CHARS) };
}

export async function createTarget(ctx: WebhookContext, input: CreateWebhookInput): Promise<TargetWithSecret> {
  await refuseUnknownSites(ctx.db, input.filter.site_ids ?? [], 'filter.site_ids');
  const now = ctx.clock.now().toISOString();
  const fresh = freshSecret(ctx.config);
  const [row] = await ctx.db.sql<TargetRow>(
    `INSERT INTO webhook_targets (id, name, url, secret_ciphertext, secret_salt, secret_prefix, events, filter, enabled, created_at, updated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, (SELECT array_agg(value) FROM json_array_elements_text($7::json)), $8::jsonb, $9, $10::timestamptz, $10::timestamptz)
     RETURNING ${COLUMNS}`,
    [
      randomUUID(),
      input.name,
      input.url,
      fresh.ciphertext,
      fresh.salt,
      fresh.prefix,
      JSON.stringify(input.events),
      JSON.stringify(input.filter),
      input.enabled,
      now,
    ],
  );
  if (!row) throw new HubError('internal', 'webhook target not stored');
  return { row, secret: fresh.secret };
}

export async function editTarget(ctx: WebhookContext, id: string, input: EditWebhookInput): Promise<TargetRow> {
  await getTarget(ctx.db, id);
  await refuseUnknownSites(ctx.db, input.filter?.site_ids ?? [], 'filter.site_ids');
  const [row] = await ctx.db.sql<TargetRow>(
    `UPDATE webhook_targets SET name = COALESCE($2, name), url = COALESCE($3, url),
            events = COALESCE((SELECT array_agg(value) FROM json_array_elements_text($4::json)), events),
            filter = COALESCE($5::jsonb, filter), enabled = COALESCE($6, enabled), updated_at = $7::timestamptz
     WHERE id = $1::uuid RETURNING ${COLUMNS}`,
    [
      id,
      input.name ?? null,
      input.url ?? null,
      input.events ? JSON.stringify(input.events) : null,
      input.filter ? JSON.stringify(input.filter) : null,
      input.enabled ?? null,
      ctx.clock.now().toISOString(),
    ],
  );
  if (!row) throw new HubError('not_found', 'no such webhook target');
  return row;
}

/**
 * A new secret, shown once; deliveries still queued are signed with it from now on. Also the
 * way out for a target whose sealed secret no longer opens (the hub secret changed).
 */
export async function rotateSecret(ctx: WebhookContext, id: string): Promise<TargetWithSecret> {
  await getTarget(ctx.db, id);
  const fresh = freshSecret(ctx.config);
  const [row] = await ctx.db.sql<TargetRow>(
    `UPDATE webhook_targets SET secret = NULL, secret_ciphertext = $2, secret_salt = $3, secret_prefix = $4, updated_at = $5::timestamptz
     WHERE id = $1::uuid RETURNING ${COLUMNS}`,
    [id, fresh.ciphertext, fresh.salt, fresh.prefix, ctx.clock.now().toISOString()],
  );
  if (!row) throw new HubError('not_found', 'no such webhook target');
  return { row, secret: fresh.secret };
}

/** Removes the target and its queued deliveries (nothing more is sent to it). */
export async function removeTarget(ctx: WebhookContext, id: string): Promise<void> {
  await getTarget(ctx.db, id);
  await ctx.db.sql(`DELETE FROM webhook_targets WHERE id = $1::uuid`, [id]);
}

export type DeliveryView = {
  id: string;
  message_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_retry_at: Date;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
};

/** The target's latest deliveries, newest first: what failed and why. */
export async function recentDeliveries(db: DbSession, id: string, limit = 50) {
  await getTarget(db, id);
  const rows = await db.sql<DeliveryView>(
    `SELECT id::text AS id, message_id, event_type, status, attempts, next_retry_at, last_status, last_error, created_at, sent_at
     FROM webhook_deliveries WHERE target_id = $1::uuid ORDER BY id DESC LIMIT $2`,
    [id, limit],
  );
  return rows.map((r) => ({
    ...r,
    attempts: Number(r.attempts),
    next_retry_at: new Date(r.next_retry_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(),
    sent_at: isoOrNull(r.sent_at),
  }));
}
