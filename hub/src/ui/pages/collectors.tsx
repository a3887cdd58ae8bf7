import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { FreshCodePrompt, SecretOnce } from './admin-parts.tsx';

/** Collectors for admins (client/collectors.ts over `/api/v1/admin/collectors`). */
export function CollectorsPage(props: { user: SessionUser }) {
  return (
    <Page title="Collectors" script="collectors" user={props.user} path="/admin/collectors">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <form id="create-form" class="card">
        <h2>Add a collector</h2>
        <label for="site-name">Site name</label>
        <input id="site-name" required maxlength={200} />
        <label for="site-address">Address (optional)</label>
        <input id="site-address" maxlength={500} />
        <button type="submit">Create</button>
      </form>
      <SecretOnce />
      <FreshCodePrompt />
      <table id="collectors">
        <caption class="visually-hidden">Collectors</caption>
        <thead>
          <tr>
            <th scope="col">Site</th>
            <th scope="col">Status</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col">Queue</th>
            <th scope="col">Cameras online</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
    </Page>
  );
}
