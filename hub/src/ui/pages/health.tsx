import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/**
 * Health for admins (client/health.ts, docs/dashboard.md "Health"): alert checks that failed
 * for good, each a watchlist hit nobody may have seen, with requeue; then health alerts, open
 * ones first and the closed ones as history, optionally for one collector. Between them, the
 * search key builder's lag (docs/search.md "Keys built after commit").
 */
export function HealthPage(props: { user: SessionUser; collectors: ReadonlyArray<{ id: string; name: string }>; collectorId: string | undefined }) {
  return (
    <Page title="Health" script="health" user={props.user} path="/admin/health">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <section aria-labelledby="failed-title">
        <h2 id="failed-title">Failed alert checks</h2>
        <div class="toolbar">
          <p id="failed-count" aria-live="polite">
            Loading…
          </p>
          <button type="button" id="requeue-all" class="secondary" hidden>
            Requeue all
          </button>
        </div>
        <DataTable
          id="failed"
          caption="Alert checks that failed five times, newest first"
          hiddenCaption
          columns={['Plate', 'Site', 'Seen', 'Attempts', 'Error', 'Failed', 'Actions']}
        />
      </section>
      <section aria-labelledby="search-keys-title">
        <h2 id="search-keys-title">Search keys</h2>
        <p id="search-keys" aria-live="polite">
          Loading…
        </p>
      </section>
      <section aria-labelledby="health-title">
        <h2 id="health-title">Health alerts</h2>
        <div class="toolbar">
          <div>
            <label for="collector">Collector</label>
            <select id="collector">
              <option value="">All collectors</option>
              {props.collectors.map((c) => (
                <option value={c.id} selected={c.id === props.collectorId}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <p id="health-live" class="status" data-state="connecting" aria-live="polite">
            Connecting…
          </p>
        </div>
        <DataTable id="open-alerts" caption="Open now, newest first" columns={['What', 'Collector', 'Camera', 'Opened']} />
        <DataTable id="closed-alerts" caption="History: closed, newest first" columns={['What', 'Collector', 'Camera', 'Opened', 'Closed']} />
        <button type="button" id="older" class="secondary" hidden>
          Older health alerts
        </button>
      </section>
    </Page>
  );
}
