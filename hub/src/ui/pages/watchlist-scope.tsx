/**
 * The selected list's scope (docs/watchlists.md "Scopes"): the rule in words for everyone,
 * and for operators and admins a form for mode, places, direction, days and hours with the
 * zone (client/watchlist-scope.ts).
 */
const DAYS = [
  ['mon', 'Mon'],
  ['tue', 'Tue'],
  ['wed', 'Wed'],
  ['thu', 'Thu'],
  ['fri', 'Fri'],
  ['sat', 'Sat'],
  ['sun', 'Sun'],
] as const;

export function ScopeSection(props: { canWrite: boolean }) {
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
          <label for="scope-places">Collectors (their ids, one a line; none and no sites: everywhere)</label>
          <textarea id="scope-places" rows={2}></textarea>
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
