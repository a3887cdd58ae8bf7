import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/**
 * Sites and site groups for admins (client/sites.ts over `/api/v1/admin/sites` and
 * `/api/v1/admin/site-groups`; docs/sites.md): who sees which reads is decided by these.
 */
export function SitesPage(props: { user: SessionUser }) {
  return (
    <Page title="Sites" script="sites" user={props.user} path="/admin/sites">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <p>
        Every collector belongs to one site. Operators and viewers see the reads of their own sites only; give them sites on the{' '}
        <a href="/admin/users">Users</a> page.
      </p>
      <form id="create-site" class="card">
        <h2>Add a site</h2>
        <label for="site-name">Name</label>
        <input id="site-name" required maxlength={100} autocomplete="off" />
        <label for="site-zone">Time zone (optional, for example Europe/Paris)</label>
        <input id="site-zone" maxlength={64} autocomplete="off" />
        <button type="submit">Add site</button>
      </form>
      <DataTable id="sites" caption="Sites" columns={['Name', 'Time zone', 'Collectors', 'Move a collector here', 'Actions']} />
      <form id="create-group" class="card">
        <h2>Add a site group</h2>
        <label for="group-name">Name</label>
        <input id="group-name" required maxlength={100} autocomplete="off" />
        <fieldset id="group-sites">
          <legend>Sites in the group</legend>
        </fieldset>
        <button type="submit">Add group</button>
      </form>
      <DataTable id="groups" caption="Site groups" columns={['Name', 'Sites', 'Actions']} />
    </Page>
  );
}
