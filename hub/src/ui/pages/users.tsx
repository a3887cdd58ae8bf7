import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';
import { FreshCodePrompt, SecretOnce } from './admin-parts.tsx';

/** Users and roles for admins (client/users.ts over `/api/v1/admin/users`). */
export function UsersPage(props: { user: SessionUser }) {
  return (
    <Page title="Users" script="users" user={props.user} path="/admin/users">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <form id="create-user" class="card">
        <h2>Add a user</h2>
        <label for="user-email">Email</label>
        <input id="user-email" type="email" required maxlength={320} autocomplete="off" />
        <label for="user-role">Role</label>
        <select id="user-role">
          <option value="viewer">Viewer (reads detections and alerts)</option>
          <option value="operator">Operator (searches, watchlists, holds)</option>
          <option value="admin">Admin (everything)</option>
        </select>
        <button type="submit">Create</button>
      </form>
      <SecretOnce />
      <FreshCodePrompt />
      <DataTable id="users" caption="Users" hiddenCaption columns={['Email', 'Role', 'State', 'Two-factor', 'Actions']} />
      <form id="user-sites" class="card" hidden>
        <h2 id="user-sites-title">Sites</h2>
        <p class="hint">Operators and viewers see the reads of these sites only (docs/sites.md); admins always see every site.</p>
        <label class="check">
          <input id="sites-all" type="checkbox" /> All sites
        </label>
        <fieldset id="sites-pick">
          <legend>Sites</legend>
        </fieldset>
        <fieldset id="groups-pick">
          <legend>Site groups</legend>
        </fieldset>
        <button type="submit">Save sites</button>
      </form>
    </Page>
  );
}
