import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/** Legal holds and the evidence exports made (client/holds.ts). */
export function HoldsPage(props: { user: SessionUser }) {
  return (
    <Page title="Legal holds and exports" script="holds" user={props.user} path="/admin/holds">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <label class="check">
        <input type="checkbox" id="active-only" checked /> Active holds only
      </label>
      <DataTable id="holds" caption="Legal holds (place one from a detection's page)" columns={['Case', 'Detection', 'Reason', 'Placed', 'Released']} />
      <form id="release-form" class="card">
        <h2>Release a case</h2>
        <label for="release-case">Case id</label>
        <input id="release-case" required maxlength={100} />
        <label for="release-reason">Reason</label>
        <input id="release-reason" required maxlength={500} />
        <button type="submit">Release every hold of the case</button>
      </form>
      <DataTable id="exports" caption="Evidence exports, newest first (from the audit log)" columns={['When', 'Who', 'Reason', 'Detections']} />
    </Page>
  );
}
