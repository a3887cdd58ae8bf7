/// <reference lib="dom" />
import { ADMIN_AUDIT_PATH, ADMIN_USERS_PATH, LEGAL_HOLDS_PATH, LEGAL_HOLDS_RELEASE_PATH } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, labelCells, say, when } from './dom.ts';
import { failed } from './failed.ts';
// The wire shape, written once by the verb that lists holds (type-only: erased from the bundle).
import type { listHolds } from '../../legal-holds/holds.ts';

/* Legal holds (docs/legal-hold.md): list, release a case; the exports made, from the audit log. */
type Hold = Awaited<ReturnType<typeof listHolds>>['data'][number];

async function refresh(): Promise<void> {
  const active = byId<HTMLInputElement>('active-only').checked;
  const holds = await api<{ data: Hold[] }>('GET', `${LEGAL_HOLDS_PATH}?limit=500${active ? '&active=true' : ''}`);
  byId('holds')
    .querySelector('tbody')
    ?.replaceChildren(
      ...holds.data.map((h) =>
        el(
          'tr',
          {},
          el('td', {}, h.case_id),
          el('td', {}, el('a', { href: `/detections/${h.detection_id}` }, h.detection_id)),
          el('td', {}, h.reason),
          el('td', {}, when(h.created_at)),
          el('td', {}, when(h.released_at)),
        ),
      ),
    );
  labelCells(byId<HTMLTableElement>('holds'));
  const [users, exports] = await Promise.all([
    api<{ data: Array<{ id: string; email: string }> }>('GET', ADMIN_USERS_PATH),
    api<{ data: Array<{ at: string; actor_user_id: string | null; detail: { reason?: string; result_count?: number } }> }>(
      'GET',
      `${ADMIN_AUDIT_PATH}?action=export.detections&limit=50`,
    ),
  ]);
  const emails = new Map(users.data.map((u) => [u.id, u.email]));
  byId('exports')
    .querySelector('tbody')
    ?.replaceChildren(
      ...exports.data.map((e) =>
        el(
          'tr',
          {},
          el('td', {}, when(e.at)),
          el('td', {}, e.actor_user_id ? (emails.get(e.actor_user_id) ?? e.actor_user_id) : '—'),
          el('td', {}, e.detail.reason ?? ''),
          el('td', {}, String(e.detail.result_count ?? '')),
        ),
      ),
    );
  labelCells(byId<HTMLTableElement>('exports'));
}

byId('active-only').addEventListener('change', () => void refresh().catch(failed));
byId<HTMLFormElement>('release-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const caseId = byId<HTMLInputElement>('release-case').value.trim();
  api('POST', LEGAL_HOLDS_RELEASE_PATH, { case_id: caseId, reason: byId<HTMLInputElement>('release-reason').value.trim() })
    .then(() => {
      say(`Holds of case ${caseId} released.`, 'info');
      (event.target as HTMLFormElement).reset();
      return refresh();
    })
    .catch(failed);
});
refresh().catch(failed);
