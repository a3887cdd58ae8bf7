/// <reference lib="dom" />
import { PURPOSES_PATH } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId } from './dom.ts';
// The wire shape, written once by the server (type-only: erased from the bundle).
import type { Purpose } from '../../audit/purposes/store.ts';

/*
 * The purpose fields of pages/purpose-fields.tsx (docs/security.md "Purposes"): filled from
 * `GET /api/v1/purposes`; the case number becomes required when the chosen purpose needs
 * one. The three values travel in the page's query string like the rest of the form.
 */
const select = (): HTMLSelectElement => byId<HTMLSelectElement>('purpose');
const caseInput = (): HTMLInputElement => byId<HTMLInputElement>('case-number');
const note = (): HTMLInputElement => byId<HTMLInputElement>('reason');
let needsCase = new Set<string>();

function arrange(): void {
  caseInput().required = needsCase.has(select().value);
}

/** Fills the select (keeping a chosen value) and wires the case number's `required`. */
export async function loadPurposes(): Promise<void> {
  const { data } = await api<{ data: Purpose[] }>('GET', PURPOSES_PATH);
  needsCase = new Set(data.filter((p) => p.case_number_required).map((p) => p.code));
  const chosen = select().value;
  const first = select().options[0];
  select().replaceChildren(...(first ? [first] : []));
  for (const p of data) {
    const option = document.createElement('option');
    option.value = p.code;
    option.textContent = p.case_number_required ? `${p.label} (case number required)` : p.label;
    select().append(option);
  }
  select().value = chosen;
  select().addEventListener('change', arrange);
  arrange();
}

/** What is missing, in words, or null when the fields are complete. */
export function purposeProblem(): string | null {
  if (!select().value) return 'Choose a purpose: every search is recorded with why it was made.';
  if (needsCase.has(select().value) && !caseInput().value.trim()) return 'This purpose needs a case number.';
  return null;
}

/** Sets purpose, case_number and reason (when given) on a query. */
export function setPurposeParams(q: URLSearchParams): URLSearchParams {
  q.set('purpose', select().value);
  const caseNumber = caseInput().value.trim();
  if (caseNumber) q.set('case_number', caseNumber);
  const reason = note().value.trim();
  if (reason) q.set('reason', reason);
  return q;
}

/** The same three from a query (a bookmark, the Back button). */
export function fillPurposeFields(q: URLSearchParams): void {
  select().value = q.get('purpose') ?? '';
  caseInput().value = q.get('case_number') ?? '';
  note().value = q.get('reason') ?? '';
  arrange();
}

/** The purpose part of a query alone, to carry to a detection's page or an export. */
export function purposeOnly(q: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const key of ['purpose', 'case_number', 'reason']) {
    const v = q.get(key);
    if (v) out.set(key, v);
  }
  return out;
}
