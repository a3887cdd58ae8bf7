/**
 * The purposes table (migration 0027): list, create, retire, reactivate. Retired, never
 * deleted: audit rows name purposes by code for as long as the log is kept (7 years).
 */
import type { DbSession } from '../../db/session.ts';
import { HubError } from '../../platform/errors.ts';
import type { CreatePurpose } from './schema.ts';

export interface Purpose {
  code: string;
  label: string;
  description: string;
  case_number_required: boolean;
  active: boolean;
  created_at: string;
  retired_at: string | null;
}

type Row = { code: string; label: string; description: string; case_number_required: boolean; created_at: Date; retired_at: Date | null };
const COLUMNS = 'code, label, description, case_number_required, created_at, retired_at';
const present = (r: Row): Purpose => ({
  code: r.code,
  label: r.label,
  description: r.description,
  case_number_required: r.case_number_required,
  active: r.retired_at === null,
  created_at: new Date(r.created_at).toISOString(),
  retired_at: r.retired_at === null ? null : new Date(r.retired_at).toISOString(),
});

/** Active purposes first, then retired ones (when asked for), each by label. */
export async function listPurposes(db: DbSession, opts: { includeRetired: boolean }): Promise<Purpose[]> {
  const rows = await db.sql<Row>(`SELECT ${COLUMNS} FROM purposes WHERE $1::boolean OR retired_at IS NULL ORDER BY retired_at IS NOT NULL, label, code`, [
    opts.includeRetired,
  ]);
  return rows.map(present);
}

export async function findPurpose(db: DbSession, code: string): Promise<Purpose | null> {
  const [row] = await db.sql<Row>(`SELECT ${COLUMNS} FROM purposes WHERE code = $1`, [code]);
  return row ? present(row) : null;
}

export async function createPurpose(ctx: { db: DbSession; now: Date }, userId: string, input: CreatePurpose): Promise<Purpose> {
  const rows = await ctx.db.sql<Row>(
    `INSERT INTO purposes (code, label, description, case_number_required, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (code) DO NOTHING RETURNING ${COLUMNS}`,
    [input.code, input.label, input.description, input.case_number_required, ctx.now, userId],
  );
  const [row] = rows;
  // A retired code is not free again: old audit rows mean the old purpose by it.
  if (!row) throw new HubError('conflict', `purpose ${input.code} already exists (retired ones too: codes are never reused)`);
  return present(row);
}

/** Retire (`active: false`) or bring back; 404 for an unknown code, 409 when already so. */
export async function setPurposeActive(ctx: { db: DbSession; now: Date }, userId: string, code: string, active: boolean): Promise<Purpose> {
  const rows = active
    ? await ctx.db.sql<Row>(`UPDATE purposes SET retired_at = NULL, retired_by = NULL WHERE code = $1 AND retired_at IS NOT NULL RETURNING ${COLUMNS}`, [code])
    : await ctx.db.sql<Row>(`UPDATE purposes SET retired_at = $2, retired_by = $3 WHERE code = $1 AND retired_at IS NULL RETURNING ${COLUMNS}`, [
        code,
        ctx.now,
        userId,
      ]);
  const [row] = rows;
  if (row) return present(row);
  if (!(await findPurpose(ctx.db, code))) throw new HubError('not_found', `no purpose ${code}`);
  throw new HubError('conflict', active ? `purpose ${code} is active already` : `purpose ${code} is retired already`);
}
