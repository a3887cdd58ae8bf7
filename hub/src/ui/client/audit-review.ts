/// <reference lib="dom" />
import { ADMIN_AUDIT_REVIEW_PATH } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, show, when } from './dom.ts';
import { failed } from './failed.ts';
import { AUDIT_IDS_MAX } from '../../audit/ids-limit.ts';

/*
 * The audit review (docs/audit-review.md): the flags of the chosen span with the audit rows
 * behind each (opened with a disclosure), and lookups by purpose per user and week.
 */
interface ReviewRow {
  audit_id: string;
  at: string;
  action: string;
  plate: string | null;
  purpose: string | null;
  case_number: string | null;
  result_count: number | null;
}
interface Review {
  since: string;
  until: string;
  users: { user_id: string; email: string | null; lookups: number }[];
  by_purpose: { user_id: string; week: string; purpose: string; count: number }[];
  flags: {
    kind: string;
    user_id: string;
    email: string | null;
    from: string;
    to: string;
    plate: string | null;
    message: string;
    audit_ids: string[];
    rows: ReviewRow[];
  }[];
}

const KIND_LABELS: Record<string, string> = {
  repeated_plate: 'Same plate again and again',
  off_hours: 'Outside usual hours',
  bulk_export: 'Bulk export',
  plate_on_no_list: 'Plate on no list',
};

const DAY_MS = 86_400_000;

function query(): URLSearchParams {
  const q = new URLSearchParams();
  const since = byId<HTMLInputElement>('since').value;
  const until = byId<HTMLInputElement>('until').value;
  if (since) q.set('since', new Date(`${since}T00:00:00`).toISOString());
  if (until) q.set('until', new Date(new Date(`${until}T00:00:00`).getTime() + DAY_MS).toISOString());
  const tz = byId<HTMLInputElement>('tz').value.trim();
  if (tz) q.set('tz', tz);
  return q;
}

function rowItem(r: ReviewRow): HTMLLIElement {
  const parts = [
    `#${r.audit_id}`,
    when(r.at),
    r.action,
    r.plate ?? '',
    r.purpose ? `purpose ${r.purpose}` : 'no purpose',
    r.case_number ? `case ${r.case_number}` : '',
    r.result_count === null ? '' : `${r.result_count} result(s)`,
  ];
  return el('li', { 'data-audit-id': r.audit_id }, parts.filter((p) => p !== '').join(' · '));
}

function flagRow(f: Review['flags'][number]): HTMLTableRowElement {
  const rows = el('details', {}, el('summary', {}, `${f.rows.length} audit row${f.rows.length === 1 ? '' : 's'}`), el('ul', {}, ...f.rows.map(rowItem)));
  return el(
    'tr',
    { 'data-flag': f.kind },
    el('td', {}, el('strong', {}, KIND_LABELS[f.kind] ?? f.kind), el('br', {}), f.message),
    el('td', {}, f.email ?? f.user_id),
    el('td', {}, f.from === f.to ? when(f.from) : `${when(f.from)} – ${when(f.to)}`),
    el('td', {}, rows, el('a', { href: auditLink(f) }, 'Open in the audit log')),
  );
}

/**
 * The audit log page on exactly this flag's rows. A flag of more rows than an address
 * carries (AUDIT_IDS_MAX) opens on its user's lookups and changes in its span instead:
 * every row it names is among them.
 */
function auditLink(f: Review['flags'][number]): string {
  if (f.audit_ids.length <= AUDIT_IDS_MAX) return `/admin/audit?${new URLSearchParams({ ids: f.audit_ids.join(',') })}`;
  return `/admin/audit?${new URLSearchParams({ actor_user_id: f.user_id, since: f.from, until: f.to })}`;
}

async function load(): Promise<void> {
  const review = await api<Review>('GET', `${ADMIN_AUDIT_REVIEW_PATH}?${query()}`);
  const emails = new Map(review.users.map((u) => [u.user_id, u.email ?? u.user_id]));
  byId('flags-count').textContent =
    review.flags.length === 0
      ? `No flags from ${when(review.since)} to ${when(review.until)}.`
      : `${review.flags.length} flag${review.flags.length === 1 ? '' : 's'} from ${when(review.since)} to ${when(review.until)}: for review, not proof of misuse.`;
  byId('flags')
    .querySelector('tbody')
    ?.replaceChildren(...review.flags.map(flagRow));
  show(byId('flags'), review.flags.length > 0);
  byId('by-purpose')
    .querySelector('tbody')
    ?.replaceChildren(
      ...review.by_purpose.map((r) =>
        el('tr', {}, el('td', {}, emails.get(r.user_id) ?? r.user_id), el('td', {}, r.week), el('td', {}, r.purpose), el('td', {}, String(r.count))),
      ),
    );
}

byId<HTMLInputElement>('tz').value = Intl.DateTimeFormat().resolvedOptions().timeZone;
byId<HTMLFormElement>('review-form').addEventListener('submit', (event) => {
  event.preventDefault();
  load().catch(failed);
});
load().catch(failed);
