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
      <section id="manage" hidden aria-labelledby="manage-title">
        <h2 id="manage-title"></h2>
        <h3>API keys</h3>
        <table id="keys">
          <caption class="visually-hidden">API keys of the collector</caption>
          <thead>
            <tr>
              <th scope="col">Prefix</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
        <button type="button" id="provision" class="secondary">New provisioning token</button>
        <h3>Commands sent</h3>
        <table id="commands">
          <caption class="visually-hidden">Commands sent to the collector, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Answer</th>
              <th scope="col">Sent</th>
              <th scope="col">Acknowledged</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
        <form id="config-form" class="card">
          <label for="config">Push a configuration (JSON)</label>
          <textarea id="config" rows={6} required></textarea>
          <button type="submit">Push</button>
        </form>
        <form id="decommission-form" class="card">
          <h3>Decommission</h3>
          <p>Revokes every key; the collector can no longer upload. Type the site name to confirm.</p>
          <label for="decommission-reason">Reason</label>
          <input id="decommission-reason" required maxlength={500} />
          <label for="decommission-confirm">Site name</label>
          <input id="decommission-confirm" required autocomplete="off" />
          <button type="submit">Decommission</button>
        </form>
        <form id="wipe-form" class="card">
          <h3>Remote wipe</h3>
          <p>The appliance erases its credentials, buffer and logs at its next heartbeat. Type the site name to confirm.</p>
          <label for="wipe-confirm">Site name</label>
          <input id="wipe-confirm" required autocomplete="off" />
          <button type="submit">Wipe</button>
        </form>
      </section>
    </Page>
  );
}
