import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';
import { FreshCodePrompt, SecretOnce } from './admin-parts.tsx';
import { CameraSection, HubCertificateLine, SiteStateSection } from './collector-parts.tsx';
import { COLLECTOR_FIELD_LIMITS } from '../../collectors/schema.ts';

/** Collectors for admins (client/collectors.ts over `/api/v1/admin/collectors`): a collector's view has its cameras, keys, commands and state. */
export function CollectorsPage(props: { user: SessionUser }) {
  return (
    <Page title="Collectors" script="collectors" user={props.user} path="/admin/collectors">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <form id="create-form" class="card">
        <h2>Add a collector</h2>
        <label for="site-name">Site name</label>
        <input id="site-name" required maxlength={COLLECTOR_FIELD_LIMITS.siteName} />
        <label for="site-address">Address (optional)</label>
        <input id="site-address" maxlength={COLLECTOR_FIELD_LIMITS.siteAddress} />
        <button type="submit">Create</button>
        <HubCertificateLine />
      </form>
      <SecretOnce />
      <FreshCodePrompt />
      <DataTable
        id="collectors"
        caption="Collectors"
        hiddenCaption
        columns={['Site', 'Status', 'Health alerts', 'Last heartbeat', 'Queue', 'Cameras online', 'Actions']}
      />
      <section id="manage" hidden aria-labelledby="manage-title">
        <h2 id="manage-title"></h2>
        <CameraSection />
        <h3>API keys</h3>
        <DataTable id="keys" caption="API keys of the collector" hiddenCaption columns={['Prefix', 'Status', 'Created', 'Last used', 'Actions']} />
        <button type="button" id="provision" class="secondary">
          New provisioning token
        </button>
        <h3>Commands sent</h3>
        <DataTable
          id="commands"
          caption="Commands sent to the collector, newest first"
          hiddenCaption
          columns={['Type', 'Status', 'Answer', 'Sent', 'Acknowledged']}
        />
        <form id="config-form" class="card">
          <label for="config">Push a configuration (JSON)</label>
          <textarea id="config" rows={6} required></textarea>
          <button type="submit">Push</button>
        </form>
        <SiteStateSection />
        <form id="decommission-form" class="card">
          <h3>Decommission</h3>
          <p>Revokes every key; the collector can no longer upload. Type the site name to confirm.</p>
          <label for="decommission-reason">Reason</label>
          <input id="decommission-reason" required maxlength={COLLECTOR_FIELD_LIMITS.reason} />
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
