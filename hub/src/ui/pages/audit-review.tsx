import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/**
 * Audit review for admins (client/audit-review.ts over `GET /api/v1/admin/audit-review`,
 * docs/audit-review.md): flags worth a second look, each opening onto its audit rows, and
 * each user's lookups by purpose per week. Flags are for review; nobody is blocked by one.
 */
export function AuditReviewPage(props: { user: SessionUser }) {
  return (
    <Page title="Audit review" script="audit-review" user={props.user} path="/admin/audit-review">
      <form id="review-form" class="card grid">
        <div>
          <label for="since">From</label>
          <input id="since" type="date" />
        </div>
        <div>
          <label for="until">Until (the day included)</label>
          <input id="until" type="date" />
        </div>
        <div>
          <label for="tz">Time zone for hours of the day</label>
          <input id="tz" autocomplete="off" spellcheck={false} />
        </div>
        <button type="submit">Review</button>
      </form>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <section aria-labelledby="flags-title">
        <h2 id="flags-title">Worth a second look</h2>
        <p id="flags-count" aria-live="polite">
          Loading…
        </p>
        <DataTable id="flags" caption="Flags, newest first" hiddenCaption columns={['What', 'Who', 'When', 'Audit rows']} />
      </section>
      <section aria-labelledby="purpose-title">
        <h2 id="purpose-title">Lookups by purpose</h2>
        <DataTable
          id="by-purpose"
          caption="Each user's searches, views, investigations and exports per week and purpose"
          columns={['Who', 'Week of', 'Purpose', 'Lookups']}
        />
      </section>
    </Page>
  );
}
