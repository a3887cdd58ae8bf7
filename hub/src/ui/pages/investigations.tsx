import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { PurposeFields } from './purpose-fields.tsx';

/**
 * Investigations (client/investigations.ts over `/api/v1/investigations/*`). Location activity's
 * site is picked by name from every collector; two sites of one name are told apart by the
 * start of their ids.
 */
export function InvestigationsPage(props: { user: SessionUser; collectors: ReadonlyArray<{ id: string; name: string }> }) {
  const named = new Map<string, number>();
  for (const c of props.collectors) named.set(c.name, (named.get(c.name) ?? 0) + 1);
  return (
    <Page title="Investigations" script="investigations" user={props.user} path="/investigations">
      <form id="investigation-form" class="card grid">
        <div>
          <label for="kind">Investigation</label>
          <select id="kind">
            <option value="plate-history">Plate history</option>
            <option value="route">Route</option>
            <option value="convoy">Convoy (travelling together)</option>
            <option value="location-activity">Location activity (one site, one day)</option>
          </select>
        </div>
        <div data-for="plate">
          <label for="plate">Plate</label>
          <input id="plate" autocomplete="off" />
        </div>
        <div data-for="range">
          <label for="start">From</label>
          <input id="start" type="date" />
        </div>
        <div data-for="range">
          <label for="end">To</label>
          <input id="end" type="date" />
        </div>
        <div data-for="site" hidden>
          <label for="collector">Site</label>
          <select id="collector">
            <option value="">Choose a site</option>
            {props.collectors.map((c) => (
              <option value={c.id}>{(named.get(c.name) ?? 0) > 1 ? `${c.name} (${c.id.slice(0, 8)})` : c.name}</option>
            ))}
          </select>
        </div>
        <div data-for="site" hidden>
          <label for="day">Day</label>
          <input id="day" type="date" />
        </div>
        <PurposeFields intro="Purpose of this investigation (recorded in the audit log)" />
        <button type="submit">Run</button>
      </form>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <p id="summary" role="status" aria-live="polite"></p>
      <div id="chart"></div>
      <div id="output"></div>
    </Page>
  );
}
