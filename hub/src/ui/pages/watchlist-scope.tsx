/**
 * The selected list's scope (docs/watchlists.md "Scopes"): the rule in words for everyone,
 * and for operators and admins a form for mode, places, direction, days and hours with the
 * zone (client/watchlist-scope.ts). Places are ticked by name from the user's own sites and
 * collectors: nobody should have to paste an id.
 */

/** The sites and collectors the signed-in user may see (docs/sites.md), offered as places. */
export interface ScopePlaces {
  sites: { id: string; name: string }[];
  collectors: { id: string; name: string }[];
}

/** Two collectors of one name are told apart by the start of their ids. */
function placeLabels(places: { id: string; name: string }[]): { id: string; label: string }[] {
  const named = new Map<string, number>();
  for (const p of places) named.set(p.name, (named.get(p.name) ?? 0) + 1);
  return places.map((p) => ({ id: p.id, label: (named.get(p.name) ?? 0) > 1 ? `${p.name} (${p.id.slice(0, 8)})` : p.name }));
}

function PlaceBoxes(props: { name: string; legend: string; places: { id: string; name: string }[]; none: string }) {
  return (
    <fieldset id={`${props.name}s`}>
      <legend>{props.legend}</legend>
      {props.places.length === 0 ? <p class="muted">{props.none}</p> : null}
      {placeLabels(props.places).map((p) => (
        <label class="check">
          <input type="checkbox" name={props.name} value={p.id} /> {p.label}
        </label>
      ))}
    </fieldset>
  );
}
const DAYS = [
  ['mon', 'Mon'],
  ['tue', 'Tue'],
  ['wed', 'Wed'],
  ['thu', 'Thu'],
  ['fri', 'Fri'],
  ['sat', 'Sat'],
  ['sun', 'Sun'],
] as const;

export function ScopeSection(props: { canWrite: boolean; places: ScopePlaces }) {
  return (
    <section id="scope-section" class="card" aria-labelledby="scope-title">
      <h3 id="scope-title">Scope</h3>
      <p>
        This list alerts: <strong id="scope-words"></strong>
      </p>
      {props.canWrite ? (
        <form id="scope-form">
          <label for="scope-mode">Mode</label>
          <select id="scope-mode">
            <option value="listed">Alert on a listed plate</option>
            <option value="allow_list">Allow-list: alert on any plate NOT on this list</option>
          </select>
          <p class="muted">Places: tick none to watch everywhere. Cameras set through the API are kept.</p>
          <PlaceBoxes name="scope-site" legend="Sites" places={props.places.sites} none="No site yet." />
          <PlaceBoxes name="scope-collector" legend="Collectors" places={props.places.collectors} none="No collector yet." />
          <label for="scope-direction">Direction</label>
          <select id="scope-direction">
            <option value="either">Either</option>
            <option value="entering">Entering</option>
            <option value="exiting">Exiting</option>
          </select>
          <fieldset>
            <legend>Days (none ticked: every day)</legend>
            {DAYS.map(([value, label]) => (
              <label class="check">
                <input type="checkbox" name="scope-day" value={value} /> {label}
              </label>
            ))}
          </fieldset>
          <label for="scope-from">From (empty: all day)</label>
          <input id="scope-from" type="time" />
          <label for="scope-to">To (before From: runs past midnight)</label>
          <input id="scope-to" type="time" />
          <label for="scope-zone">Time zone (IANA name, e.g. Europe/Paris)</label>
          <input id="scope-zone" maxlength={64} autocomplete="off" />
          <button type="submit">Save scope</button>
        </form>
      ) : null}
    </section>
  );
}
