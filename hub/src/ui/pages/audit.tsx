import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';

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
      <table id="audit">
        <caption class="visually-hidden">Audit entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Who</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
      <button type="button" id="more" class="secondary" hidden>Older entries</button>
    </Page>
  );
}
