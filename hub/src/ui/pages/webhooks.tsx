import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/**
 * Webhook targets for admins (client/webhooks.ts over `/api/v1/admin/webhooks`,
 * docs/webhooks.md): add a target (its signing secret shown once), see each target's queue
 * and last delivery, send a test event, turn a target off or remove it. A target may be kept to
 * some sites' reads, alerts and health (its filter's `site_ids`).
 */
export function WebhooksPage(props: { user: SessionUser }) {
  return (
    <Page title="Webhooks" script="webhooks" user={props.user} path="/admin/webhooks">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <section aria-labelledby="targets-title">
        <h2 id="targets-title">Targets</h2>
        <DataTable id="targets" caption="Webhook targets" hiddenCaption columns={['Name', 'Sends', 'Queue', 'Last delivery', 'Actions']} />
        <p id="no-targets" hidden>
          No webhook target yet.
        </p>
      </section>
      <section aria-labelledby="secret-title" id="secret-section" class="secret" hidden>
        <h2 id="secret-title">Signing secret</h2>
        <p>Copy it into the receiver now: the hub never shows it again (rotate it through the API to get a new one).</p>
        <p>
          <code id="secret"></code>
        </p>
      </section>
      <form id="webhook-form" class="card grid">
        <h2 class="wide">Add a target</h2>
        <div>
          <label for="hook-name">Name</label>
          <input id="hook-name" required maxlength={100} autocomplete="off" />
        </div>
        <div>
          <label for="hook-url">URL (https; http only to this machine)</label>
          <input id="hook-url" type="url" required maxlength={2000} autocomplete="off" spellcheck={false} />
        </div>
        <fieldset class="wide">
          <legend>Events</legend>
          <label class="check">
            <input type="checkbox" id="hook-alert" checked /> Alerts (a read matched a watchlist)
          </label>
          <label class="check">
            <input type="checkbox" id="hook-health" /> Health alerts opened and closed (cameras, collectors, load)
          </label>
          <label class="check">
            <input type="checkbox" id="hook-detection" /> Every stored read (from now on, not earlier ones)
          </label>
        </fieldset>
        <fieldset class="wide" id="hook-sites">
          <legend>Only these sites (none ticked: every site)</legend>
        </fieldset>
        <div>
          <label for="hook-plate">Only plates like (optional, e.g. AB1*)</label>
          <input id="hook-plate" maxlength={40} pattern="[A-Za-z0-9*?]+" autocomplete="off" spellcheck={false} />
        </div>
        <button type="submit">Add target</button>
      </form>
    </Page>
  );
}
