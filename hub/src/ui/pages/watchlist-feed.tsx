import { MAX_RETRO_HUNT_DAYS } from '../../watchlists/hunt.ts';
import { DEFAULT_FEED_SCHEDULE } from '../../watchlists/feeds/feeds.ts';

/**
 * The selected watchlist's feed and retro-hunt (client/watchlists.ts over `/api/v1/watchlist/{id}/feed`;
 * docs/watchlists.md "Feeds", "Retro-hunt"): what the list follows and what its last read did,
 * and for operators and admins the form to follow, change, read now or stop following.
 */
export function FeedSection(props: { canWrite: boolean }) {
  const days = `0 to ${MAX_RETRO_HUNT_DAYS}`;
  return (
    <>
      <section id="feed-section" class="card" aria-labelledby="feed-title">
        <h3 id="feed-title">Feed</h3>
        <p id="feed-none">This list follows no feed: its entries change only by hand.</p>
        <div id="feed-facts" hidden>
          <dl class="facts">
            <dt>URL</dt>
            <dd id="feed-url"></dd>
            <dt>Format</dt>
            <dd id="feed-format"></dd>
            <dt>Schedule</dt>
            <dd id="feed-schedule"></dd>
            <dt>Retro-hunt</dt>
            <dd id="feed-retro"></dd>
            <dt>Last read</dt>
            <dd id="feed-checked"></dd>
            <dt>Result</dt>
            <dd id="feed-result"></dd>
            <dt>Last applied</dt>
            <dd id="feed-changes"></dd>
          </dl>
        </div>
        {props.canWrite ? (
          <form id="feed-form">
            <label for="feed-url-input">Feed URL (https, or http to this machine)</label>
            <input id="feed-url-input" type="url" required maxlength={2000} autocomplete="off" />
            <label for="feed-format-input">Format</label>
            <select id="feed-format-input">
              <option value="csv">CSV (plate, notes, expires_at, priority)</option>
              <option value="json">JSON</option>
            </select>
            <label for="feed-schedule-input">Schedule (cron: minute hour day month weekday)</label>
            <input id="feed-schedule-input" required maxlength={100} value={DEFAULT_FEED_SCHEDULE} autocomplete="off" />
            <label for="feed-retro-input">Search past reads for plates the feed adds (days, {days})</label>
            <input id="feed-retro-input" type="number" required min={0} max={MAX_RETRO_HUNT_DAYS} value="7" />
            <div class="buttons">
              <button type="submit" id="feed-save">
                Follow this feed
              </button>
              <button type="button" class="secondary" id="feed-update" hidden>
                Fetch now
              </button>
              <button type="button" class="secondary" id="feed-remove" hidden>
                Stop following
              </button>
            </div>
          </form>
        ) : null}
      </section>
      <section id="hunt-section" class="card" aria-labelledby="hunt-title">
        <h3 id="hunt-title">Retro-hunt for plates added by hand</h3>
        <p id="hunt-note" class="hint"></p>
        {props.canWrite ? (
          <form id="hunt-form">
            <label for="list-retro">Days of past reads searched (0 = off, at most {MAX_RETRO_HUNT_DAYS})</label>
            <input id="list-retro" type="number" required min={0} max={MAX_RETRO_HUNT_DAYS} />
            <button type="submit">Save</button>
          </form>
        ) : null}
      </section>
    </>
  );
}
