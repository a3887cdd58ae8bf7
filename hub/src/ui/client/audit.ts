/// <reference lib="dom" />
import { ADMIN_AUDIT_PATH, ADMIN_PURPOSES_PATH, ADMIN_USERS_PATH, adminPurposeActionPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
// The wire shape, written once by the server (audit/list.ts; type-only: erased from the bundle), and the cap on linked ids.
import type { AuditEntry } from '../../audit/list.ts';
import { AUDIT_IDS_MAX } from '../../audit/ids-limit.ts';
import type { Purpose } from '../../audit/purposes/store.ts';
import { isUuid } from '@alpr/shared/validation/uuid';

/*
 * The audit log (docs/admin-api.md "Audit log"), newest first, 100 at a time, without the
 * admin pages' reads (page views) unless the box asks for them; who is shown
 * by email (the users list), details as the hub recorded them (purposes, case numbers and
 * notes of lookups included). Below: the purposes, added and retired here.
 */
let before: string | null = null;
let emails = new Map<string, string>();

/**
 * A link from the audit review opens the log on the rows behind a flag: `?ids=` names them
 * (client/audit-review.ts). A flag of more rows than an address carries links
 * `?actor_user_id=&since=&until=` instead: that user's lookups and changes in the flag's span
 * (minutes rounded outwards, as the time fields hold minutes).
 */
const linked = new URLSearchParams(location.search);
const actor = isUuid(linked.get('actor_user_id') ?? '') ? linked.get('actor_user_id') : null;
const IDS = /^[1-9][0-9]{0,18}(,[1-9][0-9]{0,18})*$/;
const ids = IDS.test(linked.get('ids') ?? '') && (linked.get('ids') ?? '').split(',').length <= AUDIT_IDS_MAX ? linked.get('ids') : null;

function localMinute(iso: string | null, roundUp: boolean): string {
  const ms = iso === null ? NaN : Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  const minute = (roundUp ? Math.ceil(ms / 60_000) : Math.floor(ms / 60_000)) * 60_000;
  return new Date(minute - new Date(minute).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
byId<HTMLInputElement>('since').value = localMinute(linked.get('since'), false);
byId<HTMLInputElement>('until').value = localMinute(linked.get('until'), true);
function showLinked(text: string): void {
  byId('linked-text').textContent = text;
  show(byId('linked'), true);
}
if (ids) {
  const count = ids.split(',').length;
  showLinked(`Showing the ${count === 1 ? 'entry' : `${count} entries`} behind one audit-review flag.`);
} else if (actor) showLinked("Showing one user's entries in a flag's span, as linked from the audit review.");

function query(): URLSearchParams {
  const q = new URLSearchParams({ limit: '100' });
  if (ids) q.set('ids', ids);
  else if (actor) q.set('actor_user_id', actor);
  // A flag's rows are shown whatever they are; otherwise page views only when asked.
  if (!ids && !byId<HTMLInputElement>('page-views').checked) q.set('page_views', 'exclude');
  const action = byId<HTMLInputElement>('action').value.trim();
  if (action) q.set('action', action);
  for (const id of ['since', 'until'] as const) {
    const v = byId<HTMLInputElement>(id).value;
    if (v) q.set(id, new Date(v).toISOString());
  }
  const purpose = byId<HTMLInputElement>('filter-purpose').value.trim();
  if (purpose) q.set('purpose', purpose);
  const caseNumber = byId<HTMLInputElement>('filter-case').value.trim();
  if (caseNumber) q.set('case_number', caseNumber);
  if (before) q.set('before', before);
  return q;
}

function row(r: AuditEntry): HTMLTableRowElement {
  const who = r.actor_user_id ? (emails.get(r.actor_user_id) ?? r.actor_user_id) : r.actor_collector_id ? `collector ${r.actor_collector_id}` : 'system';
  const detail = JSON.stringify(r.detail);
  return el(
    'tr',
    {},
    el('td', {}, when(r.at)),
    el('td', {}, el('code', {}, r.action)),
    el('td', {}, `${who}${r.ip ? ` (${r.ip})` : ''}`),
    el('td', { class: 'target' }, r.target_type ? `${r.target_type} ${r.target_id ?? ''}` : '—'),
    el('td', { class: 'detail' }, detail === '{}' ? '' : detail),
  );
}

async function load(append: boolean): Promise<void> {
  if (!append) before = null;
  if (emails.size === 0) {
    const users = await api<{ data: Array<{ id: string; email: string }> }>('GET', ADMIN_USERS_PATH);
    emails = new Map(users.data.map((u) => [u.id, u.email]));
  }
  const page = await api<{ data: AuditEntry[]; next_before: string | null }>('GET', `${ADMIN_AUDIT_PATH}?${query()}`);
  const body = byId('audit').querySelector('tbody');
  if (!append) body?.replaceChildren();
  body?.append(...page.data.map(row));
  before = page.next_before;
  show(byId('more'), before !== null);
}

byId<HTMLFormElement>('audit-form').addEventListener('submit', (event) => {
  event.preventDefault();
  load(false).catch(failed);
});
byId('more').addEventListener('click', () => void load(true).catch(failed));
load(false).catch(failed);

function purposeRow(p: Purpose): HTMLTableRowElement {
  const verb = p.active ? 'retire' : 'reactivate';
  const button = el(
    'button',
    { type: 'button', class: 'secondary', 'aria-label': `${p.active ? 'Retire' : 'Bring back'} ${p.label}` },
    p.active ? 'Retire' : 'Bring back',
  );
  button.addEventListener('click', () => {
    api('POST', adminPurposeActionPath(p.code, verb), {}).then(loadPurposes).catch(failed);
  });
  return el(
    'tr',
    {},
    el('td', {}, el('code', {}, p.code)),
    el('td', {}, p.label),
    el('td', {}, p.case_number_required ? 'required' : 'optional'),
    el('td', {}, p.active ? 'active' : `retired ${when(p.retired_at)}`),
    el('td', {}, button),
  );
}

async function loadPurposes(): Promise<void> {
  const { data } = await api<{ data: Purpose[] }>('GET', ADMIN_PURPOSES_PATH);
  byId('purposes')
    .querySelector('tbody')
    ?.replaceChildren(...data.map(purposeRow));
}

byId<HTMLFormElement>('purpose-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  api('POST', ADMIN_PURPOSES_PATH, {
    code: value('new-code'),
    label: value('new-label'),
    description: value('new-description'),
    case_number_required: byId<HTMLInputElement>('new-case-required').checked,
  })
    .then(() => {
      byId<HTMLFormElement>('purpose-form').reset();
      return loadPurposes();
    })
    .catch(failed);
});
loadPurposes().catch(failed);
