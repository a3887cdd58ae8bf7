/// <reference lib="dom" />
import { ADMIN_SITE_GROUPS_PATH, ADMIN_SITES_PATH, adminUserActionPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say } from './dom.ts';
import { failed } from './failed.ts';
import type { SiteGroupRecord, SiteRecord } from '../../sites/manage.ts';
import type { UserSites } from '../../sites/user-sites.ts';

/*
 * The sites picker on the users page (docs/sites.md "Who sees what"): every site, or a set of
 * sites and site groups. Saved whole; it holds from the user's next request.
 */
let current: { id: string; email: string } | undefined;

function choices(name: string, items: ReadonlyArray<{ id: string; name: string }>, chosen: readonly string[]): HTMLElement[] {
  return items.map((i) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name, value: i.id, checked: chosen.includes(i.id) }), ` ${i.name}`));
}

function fill(fieldset: string, nodes: HTMLElement[]): void {
  const legend = byId(fieldset).querySelector('legend');
  byId(fieldset).replaceChildren(...(legend ? [legend] : []), ...nodes);
}

/** Whether the lists mean anything: with "All sites" ticked they are kept but have no effect. */
function follow(): void {
  const all = byId<HTMLInputElement>('sites-all').checked;
  for (const id of ['sites-pick', 'groups-pick']) byId<HTMLFieldSetElement>(id).disabled = all;
}

export async function openUserSites(user: { id: string; email: string }): Promise<void> {
  const [mine, sites, groups] = await Promise.all([
    api<UserSites>('GET', adminUserActionPath(user.id, 'sites')),
    api<{ data: SiteRecord[] }>('GET', ADMIN_SITES_PATH),
    api<{ data: SiteGroupRecord[] }>('GET', ADMIN_SITE_GROUPS_PATH),
  ]);
  current = user;
  byId('user-sites-title').textContent = `Sites of ${user.email}`;
  byId<HTMLInputElement>('sites-all').checked = mine.all_sites;
  fill('sites-pick', choices('pick-site', sites.data, mine.site_ids));
  fill('groups-pick', groups.data.length > 0 ? choices('pick-group', groups.data, mine.group_ids) : [el('p', { class: 'hint' }, 'No site groups yet.')]);
  follow();
  const form = byId<HTMLFormElement>('user-sites');
  form.hidden = false;
  byId<HTMLInputElement>('sites-all').focus();
}

byId<HTMLInputElement>('sites-all').addEventListener('change', follow);
byId<HTMLFormElement>('user-sites').addEventListener('submit', (event) => {
  event.preventDefault();
  const user = current;
  if (!user) return;
  const form = event.target as HTMLFormElement;
  const picked = (name: string) => [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);
  const body = { all_sites: byId<HTMLInputElement>('sites-all').checked, site_ids: picked('pick-site'), group_ids: picked('pick-group') };
  api<UserSites>('POST', adminUserActionPath(user.id, 'sites'), body)
    .then((saved) => {
      const count = saved.site_ids.length + saved.group_ids.length;
      say(
        saved.all_sites
          ? `${user.email} sees every site.`
          : `${user.email} sees ${count === 0 ? 'no site' : `${count} site${count === 1 ? '' : 's'} or group${count === 1 ? '' : 's'}`}.`,
        'info',
      );
    })
    .catch(failed);
});
