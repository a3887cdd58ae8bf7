import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';
import { FeedSection } from './watchlist-feed.tsx';
import { ScopeSection } from './watchlist-scope.tsx';
import type { ScopePlaces } from './watchlist-scope.tsx';
import { RecipientsSection } from './watchlist-recipients.tsx';
import type { RecipientsMqtt } from './watchlist-recipients.tsx';

/** Watchlists (client/watchlists.ts over `/api/v1/watchlist`): viewers read, operators and admins change. */
export function WatchlistsPage(props: { user: SessionUser; places: ScopePlaces; mqtt: RecipientsMqtt }) {
  const canWrite = props.user.role !== 'viewer';
  return (
    <Page title="Watchlists" script="watchlists" user={props.user} path="/watchlists">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      {canWrite ? (
        <form id="create-list" class="card">
          <h2>New watchlist</h2>
          <label for="list-name">Name</label>
          <input id="list-name" required maxlength={100} />
          <label for="list-priority">Priority</label>
          <select id="list-priority">
            <option value="low">Low</option>
            <option value="medium" selected>
              Medium
            </option>
            <option value="high">High</option>
            <option value="critical">Critical</option>
          </select>
          <label class="check">
            <input type="checkbox" id="list-ocr" /> Also match plates that differ only by OCR mistakes (0/O, 8/B …)
          </label>
          <label class="check">
            <input type="checkbox" id="list-forgive" /> Forgive one misread: also alert on a read with any one character wrong, missing or extra
          </label>
          <label class="check">
            <input type="checkbox" id="list-verify" checked /> Verify before acting: a person compares each hit's crop with the listed plate before it counts
            (alerts say unverified until then)
          </label>
          <button type="submit">Create</button>
        </form>
      ) : null}
      <DataTable
        id="lists"
        caption="Watchlists (subscribe to receive their alerts)"
        data={{ 'can-write': canWrite ? 'true' : 'false' }}
        columns={['Name', 'Priority', 'Entries', 'Feed', 'Active', 'Alerts for me']}
      />
      <section id="entries-section" hidden aria-labelledby="entries-title">
        <h2 id="entries-title">Entries</h2>
        {canWrite ? (
          <form id="add-entry" class="card">
            <label for="entry-plate">Plate</label>
            <input id="entry-plate" required maxlength={20} autocomplete="off" />
            <label for="entry-notes">Notes (shown with each alert)</label>
            <input id="entry-notes" maxlength={500} />
            <button type="submit">Add</button>
          </form>
        ) : null}
        <ScopeSection canWrite={canWrite} places={props.places} />
        {canWrite ? <RecipientsSection isAdmin={props.user.role === 'admin'} mqtt={props.mqtt} /> : null}
        <FeedSection canWrite={canWrite} />
        {canWrite ? (
          <form id="import" class="card">
            <label for="csv">Import a CSV file (columns plate, notes)</label>
            <input id="csv" type="file" accept=".csv,text/csv" required />
            <button type="submit">Import</button>
            <ul id="import-errors"></ul>
          </form>
        ) : null}
        <p>
          <a id="export" href="#">
            Download as CSV
          </a>
        </p>
        <DataTable id="entries" caption="Entries of the selected watchlist" hiddenCaption columns={['Plate', 'Notes', 'Added', 'Actions']} />
      </section>
    </Page>
  );
}
