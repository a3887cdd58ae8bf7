/**
 * The purpose a lookup names, checked against the admins' list (docs/security.md
 * "Purposes"): known, active, and with a case number when it requires one. Every refusal
 * is a 400 naming the field, so a client can show it beside the right input.
 */
import type { DbSession } from '../../db/session.ts';
import { HubError } from '../../platform/errors.ts';
import { findPurpose } from './store.ts';

export interface LookupPurpose {
  purpose: string;
  case_number?: string | undefined;
  reason?: string | undefined;
}

/** What the audit row of a lookup carries about why: purpose, case number (or null), note (or null). */
export interface StatedPurpose {
  purpose: string;
  case_number: string | null;
  reason: string | null;
}

export async function checkPurpose(db: DbSession, given: LookupPurpose): Promise<StatedPurpose> {
  const purpose = await findPurpose(db, given.purpose);
  if (!purpose) throw new HubError('bad_request', `purpose: no purpose ${given.purpose} (GET /api/v1/purposes lists them)`);
  if (!purpose.active) throw new HubError('bad_request', `purpose: ${given.purpose} is retired; choose another`);
  if (purpose.case_number_required && !given.case_number) throw new HubError('bad_request', `case_number: required for the purpose ${given.purpose}`);
  return { purpose: purpose.code, case_number: given.case_number ?? null, reason: given.reason ?? null };
}
