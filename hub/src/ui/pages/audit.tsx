import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/** The audit log for admins (client/audit.ts over `GET /api/v1/admin/audit`). */
export function AuditPage(props: { user: SessionUser }) {
  return (
    <Page title="Audit log" script="audit" user={props.user} path="/admin/audit">
      <form id="audit-form" class="card grid">
        <div>
          <label for="action">Action (prefix, e.g. search. or admin.)</label>
          <input id="action" autocomplete="off" />
        </div>
        <div>
          <label for="since">Since</label>
          <input id="since" type="datetime-local" />
        </div>
        <div>
          <label for="until">Until</label>
          <input id="until" type="datetime-local" />
        </div>
        <button type="submit">Show</button>
      </form>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <DataTable id="audit" caption="Audit entries, newest first" hiddenCaption columns={['When', 'Action', 'Who', 'Target', 'Details']} />
      <button type="button" id="more" class="secondary" hidden>
        Older entries
      </button>
    </Page>
  );
}
