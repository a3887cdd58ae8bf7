import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';
import { PurposeFields } from './purpose-fields.tsx';

const AREA = [
  ['lat-min', 'Latitude from', 90],
  ['lat-max', 'Latitude to', 90],
  ['lon-min', 'Longitude from', 180],
  ['lon-max', 'Longitude to', 180],
] as const;

/** Detection search (client/search.ts over `GET /api/v1/events/search`). */
export function SearchPage(props: { user: SessionUser; collectors: ReadonlyArray<{ id: string; name: string }> }) {
  return (
    <Page title="Search" script="search" user={props.user} path="/search">
      <form id="search-form" class="card grid">
        <div>
          <label for="plate">Plate</label>
          <input id="plate" name="plate" placeholder="AB12CDE, AB1*, *123, *BC1*" autocomplete="off" />
        </div>
        <div>
          <label for="plate-match">Match</label>
          <select id="plate-match" name="plate_match">
            <option value="">Exact plate or pattern</option>
            <option value="fuzzy">Similar plates (OCR mistakes: 0/O, 8/B, 5/S …)</option>
            <option value="one_edit">One misread away (any one character wrong, missing or extra)</option>
          </select>
        </div>
        <div>
          <label for="start">From</label>
          <input id="start" name="start_date" type="datetime-local" />
        </div>
        <div>
          <label for="end">To</label>
          <input id="end" name="end_date" type="datetime-local" />
        </div>
        <div>
          <label for="min-confidence">Minimum confidence (%)</label>
          <input id="min-confidence" name="min_confidence" type="number" min="0" max="100" step="1" aria-describedby="min-confidence-hint" />
          <small id="min-confidence-hint" class="muted">
            Above 0, reads whose camera reports no confidence are left out.
          </small>
        </div>
        <div>
          <label for="direction">Direction</label>
          <select id="direction" name="direction">
            <option value="">Any</option>
            <option value="entering">Entering</option>
            <option value="leaving">Leaving</option>
          </select>
        </div>
        <div>
          <label for="collectors">Collectors (none chosen: all)</label>
          <select id="collectors" name="collector_id" multiple size={Math.min(5, Math.max(2, props.collectors.length))}>
            {props.collectors.map((c) => (
              <option value={c.id}>{c.name}</option>
            ))}
          </select>
        </div>
        <details class="wide">
          <summary>Area (bounding box)</summary>
          <div class="card grid">
            {AREA.map(([id, label, limit]) => (
              <div>
                <label for={id}>{label}</label>
                <input id={id} type="number" step="any" min={String(-limit)} max={String(limit)} />
              </div>
            ))}
          </div>
        </details>
        <PurposeFields />
        <button type="submit">Search</button>
      </form>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <p id="summary" role="status" aria-live="polite"></p>
      <DataTable id="results" caption="Detections found" hiddenCaption hidden columns={['Crop', 'Plate', 'Captured', 'Site', 'Confidence', 'Direction']} />
      <nav id="pager" aria-label="Result pages" hidden>
        <button type="button" id="prev" class="secondary">
          Previous page
        </button>
        <span id="page-info"></span>
        <button type="button" id="next" class="secondary">
          Next page
        </button>
      </nav>
    </Page>
  );
}
