import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';

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
      <section id="secret" class="card secret" hidden aria-labelledby="secret-title">
        <h2 id="secret-title"></h2>
        <p id="secret-help"></p>
        <p>
          <code id="secret-value"></code>
        </p>
        <label class="check">
          <input type="checkbox" id="secret-copied" /> I have copied it
        </label>
        <button type="button" id="secret-done" disabled>Done</button>
      </section>
      <form id="reverify-form" class="card" hidden>
        <h2>Confirm with your authenticator</h2>
        <p>Key operations need a code from the last five minutes.</p>
        <label for="reverify-code">Code</label>
        <input id="reverify-code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
        <button type="submit">Confirm</button>
      </form>
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
