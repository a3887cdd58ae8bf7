/// <reference lib="dom" />
import {
  ADMIN_COLLECTORS_PATH,
  ADMIN_SITE_GROUPS_PATH,
  ADMIN_SITES_PATH,
  adminCollectorPartPath,
  adminSiteGroupPath,
  adminSitePath,
} from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say } from './dom.ts';
import { failed } from './failed.ts';
// The wire shapes, written once by the server (type-only: erased from the bundle).
import type { SiteGroupRecord, SiteRecord } from '../../sites/manage.ts';

/*
 * Sites and site groups for admins (docs/sites.md): add, rename by re-adding is not offered;
 * delete (refused while collectors belong to the site), move a collector to a site, group sites.
 */
type Collector = { id: string; site_name: string };

let sites: SiteRecord[] = [];
let collectors: Collector[] = [];

function button(label: string, aria: string, run: () => Promise<unknown>): HTMLButtonElement {
  const b = el('button', { type: 'button', class: 'secondary' }, label);
  b.setAttribute('aria-label', aria);
  b.addEventListener('click', () => void run().then(refresh, failed));
  return b;
}

function siteRow(s: SiteRecord): HTMLTableRowElement {
  const names = s.collector_ids.map((id) => collectors.find((c) => c.id === id)?.site_name ?? id).join(', ');
  const others = collectors.filter((c) => !s.collector_ids.includes(c.id));
  const move = el(
    'select',
    { 'aria-label': `Collector to move to ${s.name}` },
    el('option', { value: '' }, 'choose a collector'),
    ...others.map((c) => el('option', { value: c.id }, c.site_name)),
  );
  move.addEventListener('change', () => {
    if (!move.value) return;
    const name = move.selectedOptions[0]?.textContent ?? '';
    api('POST', adminCollectorPartPath(move.value, 'site'), { site_id: s.id })
      .then(() => say(`${name} now belongs to ${s.name}.`, 'info'))
      .then(refresh, failed);
  });
  return el(
    'tr',
    { 'data-site': s.name },
    el('td', {}, s.is_default ? `${s.name} (default)` : s.name),
    el('td', {}, s.time_zone ?? ''),
    el('td', {}, names || 'none'),
    el('td', {}, others.length > 0 ? move : 'every collector is here'),
    el(
      'td',
      { class: 'actions' },
      s.is_default ? null : button('Delete', `Delete ${s.name}`, () => api('DELETE', adminSitePath(s.id)).then(() => say(`${s.name} deleted.`, 'info'))),
    ),
  );
}

function groupRow(g: SiteGroupRecord): HTMLTableRowElement {
  const names = g.site_ids.map((id) => sites.find((s) => s.id === id)?.name ?? id).join(', ');
  return el(
    'tr',
    { 'data-group': g.name },
    el('td', {}, g.name),
    el('td', {}, names || 'none'),
    el(
      'td',
      { class: 'actions' },
      button('Delete', `Delete group ${g.name}`, () => api('DELETE', adminSiteGroupPath(g.id)).then(() => say(`Group ${g.name} deleted.`, 'info'))),
    ),
  );
}

/** One checkbox per site, for a new group. */
function siteChoices(): HTMLElement[] {
  return sites.map((s) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'group-site', value: s.id }), ` ${s.name}`));
}

async function refresh(): Promise<void> {
  const [s, g, c] = await Promise.all([
    api<{ data: SiteRecord[] }>('GET', ADMIN_SITES_PATH),
    api<{ data: SiteGroupRecord[] }>('GET', ADMIN_SITE_GROUPS_PATH),
    api<{ data: Collector[] }>('GET', ADMIN_COLLECTORS_PATH),
  ]);
  sites = s.data;
  collectors = c.data;
  byId('sites')
    .querySelector('tbody')
    ?.replaceChildren(...sites.map(siteRow));
  byId('groups')
    .querySelector('tbody')
    ?.replaceChildren(...g.data.map(groupRow));
  const legend = byId('group-sites').querySelector('legend');
  byId('group-sites').replaceChildren(...(legend ? [legend] : []), ...siteChoices());
}

byId<HTMLFormElement>('create-site').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const name = byId<HTMLInputElement>('site-name').value.trim();
  const zone = byId<HTMLInputElement>('site-zone').value.trim();
  api('POST', ADMIN_SITES_PATH, { name, ...(zone ? { time_zone: zone } : {}) })
    .then(() => {
      say(`Site ${name} added.`, 'info');
      form.reset();
    })
    .then(refresh, failed);
});

byId<HTMLFormElement>('create-group').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const name = byId<HTMLInputElement>('group-name').value.trim();
  const siteIds = [...form.querySelectorAll<HTMLInputElement>('input[name="group-site"]:checked')].map((i) => i.value);
  api('POST', ADMIN_SITE_GROUPS_PATH, { name, site_ids: siteIds })
    .then(() => {
      say(`Group ${name} added.`, 'info');
      form.reset();
    })
    .then(refresh, failed);
});

void refresh().catch(failed);
