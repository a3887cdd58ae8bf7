import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';

/** Legal holds and the evidence exports made (client/holds.ts). */
export function HoldsPage(props: { user: SessionUser }) {
  return (
    <Page title="Legal holds and exports" script="holds" user={props.user} path="/admin/holds">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <label class="check">
        <input type="checkbox" id="active-only" checked /> Active holds only
      </label>
      <table id="holds">
        <caption>Legal holds (place one from a detection's page)</caption>
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Detection</th>
            <th scope="col">Reason</th>
            <th scope="col">Placed</th>
            <th scope="col">Released</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
      <form id="release-form" class="card">
        <h2>Release a case</h2>
        <label for="release-case">Case id</label>
        <input id="release-case" required maxlength={100} />
        <label for="release-reason">Reason</label>
        <input id="release-reason" required maxlength={500} />
        <button type="submit">Release every hold of the case</button>
      </form>
      <table id="exports">
        <caption>Evidence exports, newest first (from the audit log)</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Reason</th>
            <th scope="col">Detections</th>
          </tr>
        </thead>
        <tbody></tbody>
      </table>
    </Page>
  );
}
