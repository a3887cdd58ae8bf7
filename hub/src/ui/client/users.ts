/// <reference lib="dom" />
import { ADMIN_USERS_PATH, adminUserActionPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say } from './dom.ts';
import { failed, reveal, withFreshFactor } from './fresh-factor.ts';
import { openUserSites } from './user-sites.ts';
// The wire shape, written once by the server's presenter (type-only: erased from the bundle).
import type { presentUser } from '../../admin/user-routes.ts';

/*
 * Users for admins (docs/admin-api.md "Users"): create (the one-time password shown once),
 * change a role, deactivate or activate, reset two-factor or the password (a new one-time
 * password), end every session. Creating and the resets need a fresh second factor.
 */
type User = ReturnType<typeof presentUser>;

function action(label: string, user: User, run: () => Promise<void>): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'secondary' }, label);
  button.setAttribute('aria-label', `${label}: ${user.email}`);
  button.addEventListener('click', () => void run().then(refresh, failed));
  return button;
}

function sitesButton(u: User): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'secondary' }, 'Sites');
  button.setAttribute('aria-label', `Sites: ${u.email}`);
  button.addEventListener('click', () => void openUserSites(u).catch(failed));
  return button;
}

function row(u: User): HTMLTableRowElement {
  const role = el(
    'select',
    { 'aria-label': `Role of ${u.email}` },
    ...(['viewer', 'operator', 'admin'] as const).map((r) => el('option', { value: r, selected: r === u.role }, r)),
  );
  role.addEventListener('change', () => {
    api('POST', adminUserActionPath(u.id, 'role'), { role: role.value })
      .then(() => say(`${u.email} is now ${role.value}.`, 'info'))
      .then(refresh, failed);
  });
  const actions = el(
    'td',
    { class: 'actions' },
    action(u.is_active ? 'Deactivate' : 'Activate', u, () => api('POST', adminUserActionPath(u.id, u.is_active ? 'deactivate' : 'activate'), {})),
    action('Reset password', u, () =>
      withFreshFactor(async () => {
        const r = await api<{ one_time_password: string }>('POST', adminUserActionPath(u.id, 'reset-password'), {});
        reveal(
          `New one-time password for ${u.email}`,
          'Give it to the user in person or by another channel; they choose their own at the next sign-in.',
          r.one_time_password,
        );
      }),
    ),
    action('Reset two-factor', u, () => withFreshFactor(async () => void (await api('POST', adminUserActionPath(u.id, 'reset-2fa'), {})))),
    action('End sessions', u, () => api('POST', adminUserActionPath(u.id, 'end-sessions'), {})),
    // Admins see every site: the picker is for operators and viewers.
    u.role === 'admin' ? null : sitesButton(u),
  );
  const state = `${u.is_active ? 'active' : 'deactivated'}${u.must_change_password ? ', must change password' : ''}`;
  return el(
    'tr',
    { 'data-user': u.email },
    el('td', {}, u.email),
    el('td', {}, role),
    el('td', {}, state),
    el('td', {}, u.twofa_enrolled ? 'enrolled' : 'not yet'),
    actions,
  );
}

async function refresh(): Promise<void> {
  const list = await api<{ data: User[] }>('GET', ADMIN_USERS_PATH);
  byId('users')
    .querySelector('tbody')
    ?.replaceChildren(...list.data.map(row));
}

byId<HTMLFormElement>('create-user').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const email = byId<HTMLInputElement>('user-email').value.trim();
  const role = byId<HTMLSelectElement>('user-role').value;
  void withFreshFactor(async () => {
    const created = await api<{ one_time_password: string }>('POST', ADMIN_USERS_PATH, { email, role });
    reveal(
      `One-time password for ${email}`,
      'Shown only now. The user signs in with it, sets up two-factor, then chooses a password.',
      created.one_time_password,
    );
    form.reset();
    await refresh();
  });
});

refresh().catch(failed);
