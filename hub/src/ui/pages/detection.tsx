import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { PurposeFields } from './purpose-fields.tsx';

/**
 * One detection in full (client/detection.ts over `GET /api/v1/detections/{id}`, which
 * needs a purpose: carried from the search, or asked for here), with its legal holds.
 */
export function DetectionPage(props: { user: SessionUser; id: string }) {
  return (
    <Page title={`Detection ${props.id}`} script="detection" user={props.user} path="/search">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <form id="reason-form" class="card" data-id={props.id} hidden>
        <PurposeFields intro="Purpose of viewing this detection (recorded in the audit log)" />
        <button type="submit">Open</button>
      </form>
      <div id="detail" hidden>
        <div class="scene">
          <figure>
            <img id="full-image" alt="Full scene" />
            <figcaption>Full scene</figcaption>
          </figure>
          <figure>
            <img id="crop-image" alt="Plate crop" />
            <figcaption>Plate crop</figcaption>
          </figure>
        </div>
        <dl id="facts" class="facts"></dl>
        <section aria-labelledby="holds-title">
          <h2 id="holds-title">Legal holds</h2>
          <ul id="holds"></ul>
          <form id="hold-form" class="card">
            <label for="case-id">Case id</label>
            <input id="case-id" required maxlength={100} />
            <label for="hold-reason">Reason</label>
            <input id="hold-reason" required maxlength={500} />
            <button type="submit">Place legal hold</button>
          </form>
        </section>
        <p>
          <a id="export" href="#">
            Download evidence export (signed zip)
          </a>
        </p>
      </div>
    </Page>
  );
}
