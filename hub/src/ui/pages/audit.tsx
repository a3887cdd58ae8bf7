import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/**
 * The audit log for admins (client/audit.ts over `GET /api/v1/admin/audit`), filtered by
 * action, time, purpose and case number; lookups and changes, and the admin pages' reads
 * (page views) only when asked; below it the purposes lookups may name
 * (`/api/v1/admin/purposes`: add, retire, bring back; never delete).
 */
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
        <div>
          <label for="filter-purpose">Purpose (code, e.g. stolen_vehicle)</label>
          <input id="filter-purpose" autocomplete="off" maxlength={40} />
        </div>
        <div>
          <label for="filter-case">Case number</label>
          <input id="filter-case" autocomplete="off" maxlength={64} />
        </div>
        <div>
          <label class="check">
            <input id="page-views" type="checkbox" /> Include page views
          </label>
          <p class="hint">Admins opening lists and records (admin.collector.list and the like). Lookups and changes are always shown.</p>
        </div>
        <button type="submit">Show</button>
      </form>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <p id="linked" hidden>
        <span id="linked-text"></span> <a href="/admin/audit">Show the whole log</a>
      </p>
      <DataTable id="audit" caption="Audit entries, newest first" hiddenCaption columns={['When', 'Action', 'Who', 'Target', 'Details']} />
      <button type="button" id="more" class="secondary" hidden>
        Older entries
      </button>
      <section aria-labelledby="purposes-title">
        <h2 id="purposes-title">Purposes</h2>
        <p>Every search, investigation, detection view and export names one of these. Retired purposes stay listed: old audit rows name them.</p>
        <DataTable id="purposes" caption="Purposes" hiddenCaption columns={['Code', 'Label', 'Case number', 'State', 'Action']} />
        <form id="purpose-form" class="card grid">
          <div>
            <label for="new-code">Code (a-z, 0-9, _)</label>
            <input id="new-code" required pattern="[a-z][a-z0-9_]{1,39}" maxlength={40} autocomplete="off" />
          </div>
          <div>
            <label for="new-label">Label</label>
            <input id="new-label" required maxlength={100} autocomplete="off" />
          </div>
          <div>
            <label for="new-description">Description</label>
            <input id="new-description" maxlength={500} autocomplete="off" />
          </div>
          <div>
            <label>
              <input id="new-case-required" type="checkbox" /> Case number required
            </label>
          </div>
          <button type="submit">Add purpose</button>
        </form>
      </section>
    </Page>
  );
}
